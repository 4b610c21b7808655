/**
 * The agent kinds that ship with Proving Ground, registered with `--agent` resolution:
 * `openai:MODEL`, `anthropic:MODEL`, `openai-compatible:MODEL@URL` (LLM agents over the providers' real
 * APIs), `cmd:COMMAND` (an external program, started per episode, that acts through an MCP server the
 * gym serves it over streamable HTTP) and `cmd-jsonl:COMMAND` (the same, speaking JSON lines on
 * stdio instead). Importing this module
 * registers them; their code (and the AI SDK) loads only when a spec uses them.
 */
import { registerAgentResolver } from "./resolve.ts";

const PROVIDER_KINDS = ["openai", "anthropic", "openai-compatible"] as const;

export function registerBuiltinAgentKinds(): void {
  for (const provider of PROVIDER_KINDS) {
    registerAgentResolver(provider, async (rest, spec, ctx) => {
      const { parseLlmSpec, resolvedLlmAgent } = await import("./llm/index.ts");
      return resolvedLlmAgent(parseLlmSpec(provider, rest, { cwd: ctx.cwd, env: process.env }), spec);
    });
  }
  registerAgentResolver("cmd", async (rest, spec, ctx) => {
    const { resolveCmdAgent } = await import("./cmd/index.ts");
    return resolveCmdAgent(rest, spec, ctx.cwd);
  });
  registerAgentResolver("cmd-jsonl", async (rest, spec, ctx) => {
    const { resolveCmdJsonlAgent } = await import("./cmd/index.ts");
    return resolveCmdJsonlAgent(rest, spec, ctx.cwd);
  });
}

registerBuiltinAgentKinds();

export type { AgentResolver, ResolveContext, ResolvedAgent } from "./resolve.ts";
export { registerAgentResolver, resolveAgent } from "./resolve.ts";
