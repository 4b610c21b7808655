/**
 * The stdio JSON-lines protocol of external agents (`--agent cmd-jsonl:"python my_agent.py"`), version 1.
 * (`cmd:COMMAND` speaks MCP instead: see mcp-protocol.ts. This one needs no MCP client library.)
 *
 * The gym starts the command once per episode (through the shell, in an empty private working directory,
 * with PROVING_PROTOCOL=jsonl/1, PROVING_EPISODE_ID, PROVING_WORLD, PROVING_SAMPLING_SEED and
 * PROVING_INSTRUCTION set; never the task id, family or seed), sandboxed (program.ts, sandbox.ts).
 *
 * gym → agent (stdin), one JSON object per line:
 *   {"kind":"task","instruction":"...","context":{...},"tools":[{name,description,input_schema}],
 *    "episode":{"episodeId":"ep-...","world":"device-support@1","samplingSeed":123}}
 *   {"kind":"tool_result","tool":"get_case","callId":"call-0","result":{"ok":true,...},"now":12}
 *   {"kind":"end","outcome":"passed","verdict":{...}}        (last line; then stdin closes)
 *
 * agent → gym (stdout), exactly one JSON object per line for every `task`/`tool_result` line:
 *   {"tool":"get_case","args":{"case_id":"C-01234"}}
 *   optional: "callId" (echoed back in the next observation) and "meta" (accounting, e.g.
 *   {"tokensIn":812,"tokensOut":40,"costUsd":0.002}: the runner sums it and enforces token/cost budgets).
 * Blank lines are ignored. Anything else on stdout, or exiting before answering, ends the trial as
 * `agent_error`; write logs to stderr (its tail is quoted in the error). A bad tool call is not a
 * protocol error: the environment answers it with an error observation like any other call.
 * After `end` the agent should exit; it is sent SIGTERM after a grace period, then SIGKILL.
 */
import type { EpisodeInfo, Observation, Outcome, Verdict } from "../../core/contracts.ts";

export const CMD_JSONL_PROTOCOL = "jsonl/1";

export type GymLine =
  | (Extract<Observation, { kind: "task" }> & {
      episode: Pick<EpisodeInfo, "episodeId" | "world" | "samplingSeed">;
    })
  | Extract<Observation, { kind: "tool_result" }>
  | { kind: "end"; outcome: Outcome; verdict?: Verdict };
