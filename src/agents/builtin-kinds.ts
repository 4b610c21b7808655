/**
 * The agent kinds that ship with Proving Ground: `openai:MODEL`, `anthropic:MODEL`,
 * `openai-compatible:MODEL@URL` (LLM agents over the providers' real APIs), `cmd:COMMAND` (an external
 * program, started per episode, that acts through an MCP server the gym serves it over streamable
 * HTTP: defined in the mcp area, which hosts that server) and `cmd-jsonl:COMMAND` (the same, speaking
 * JSON lines on stdio instead). Plain values the gym wires (`BUILTIN_AGENT_KINDS` in the gym); their
 * code (and the AI SDK, the MCP SDK) loads only when a spec uses them.
 */
import { importOptional } from "../core/optional-dependency.ts";
import type { ResolveProgramAgent } from "./cmd/program-agent.ts";
import type { AgentKind } from "./resolve.ts";

const llmKind = (provider: "openai" | "anthropic" | "openai-compatible", description: string): AgentKind => ({
  prefix: provider,
  description,
  async resolve(rest, spec, ctx) {
    const { endpointKey, parseLlmSpec, resolvedLlmAgent } = await importOptional(
      () => import("./llm/index.ts"),
    );
    const config = parseLlmSpec(provider, rest, { cwd: ctx.cwd, env: ctx.env, prices: ctx.prices });
    return resolvedLlmAgent(config, spec, { limiter: ctx.limiters.get(endpointKey(config), config.limiter) });
  },
});

/** The LLM kinds: `openai:`, `anthropic:`, `openai-compatible:`. */
export const LLM_AGENT_KINDS: readonly AgentKind[] = [
  llmKind("openai", "an OpenAI chat model (OPENAI_API_KEY, OPENAI_BASE_URL)"),
  llmKind("anthropic", "an Anthropic messages model (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)"),
  llmKind("openai-compatible", "MODEL@URL: any OpenAI-compatible endpoint (OPENAI_COMPATIBLE_API_KEY)"),
];

/** A program agent kind whose resolver (and its protocol's code) loads only when a spec uses it. */
export const programKind = (
  prefix: string,
  description: string,
  load: () => Promise<ResolveProgramAgent>,
): AgentKind => ({
  prefix,
  description,
  resolve: async (rest, spec, ctx) => (await load())(rest, spec, ctx.cwd, ctx.env),
});

/** `cmd-jsonl:COMMAND`. (`cmd:COMMAND` hosts an MCP server for its program: it is the mcp area's `CMD_AGENT_KIND`.) */
export const CMD_JSONL_AGENT_KIND: AgentKind = programKind(
  "cmd-jsonl",
  "an external program per episode, speaking JSON lines on stdio",
  async () => (await import("./cmd/index.ts")).resolveCmdJsonlAgent,
);
