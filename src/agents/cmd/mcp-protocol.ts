/**
 * How an external program plays an episode as `--agent cmd:"python my_agent.py"`: over MCP
 * (streamable HTTP), version 1. (`cmd-jsonl:COMMAND` is the stdio JSON-lines alternative:
 * jsonl-protocol.ts.)
 *
 * For each episode the gym serves that episode's tools on a fresh MCP server bound to 127.0.0.1
 * (a free port, a random bearer token), then starts the command through the shell, in an empty
 * private working directory, sandboxed where bubblewrap is available (program.ts, sandbox.ts), with
 * the allowlisted environment (child-env.ts) and:
 *
 *   PROVING_PROTOCOL     mcp-http/1
 *   PROVING_MCP_URL      http://127.0.0.1:PORT/mcp   (the streamable HTTP endpoint)
 *   PROVING_MCP_TOKEN    send it as `Authorization: Bearer <token>` on every request
 *   PROVING_EPISODE_ID, PROVING_WORLD, PROVING_SAMPLING_SEED, PROVING_INSTRUCTION (never the task
 *   id, family or seed)
 *
 * The program connects with any MCP client (one session), reads the task from the server's
 * `instructions` (the same text as PROVING_INSTRUCTION) and the tools from `tools/list`, and acts by
 * calling tools: each `tools/call` is one step of the trial, run in the order the calls arrive,
 * under the trial's budgets. Tools and results have the one MCP shape of `src/protocol` (the same as
 * `proving serve`'s `/mcp`): a result's `structuredContent` is the world's JSON result
 * (`{"ok":true,...}` or `{"ok":false,"error":{code,message,retryable}}`, then `isError: true`), its
 * one text content the same JSON; `_meta` holds `done`, `reward`, `episode_id`, `step_count` and
 * `now`. A bad call is an error result, not the end of the trial; a call naming a tool that is not
 * served is a JSON-RPC error (-32602) and takes no step.
 *
 * The episode ends
 *   - when a call ends it (the world's terminal tool, or a budget): that call's result is the world's
 *     answer with `"outcome"` and `"verdict"` added (in `_meta` too); every later call gets
 *     `trial_ended` with them;
 *   - or when the program exits, or closes its MCP session, first: the trial ends as `agent_error`
 *     (the reason quotes the exit code and the tail of its stderr).
 * Once the trial has ended the program should exit; after a grace period its process group is sent
 * SIGTERM, then SIGKILL, and the server is closed. Write logs to stderr (stdout is drained and ignored).
 */

export const CMD_MCP_PROTOCOL = "mcp-http/1";
