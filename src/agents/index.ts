/**
 * Agents: `--agent` resolution over a gym's agent kinds, the built-in kinds, and module agents.
 * The LLM and external-program agents live in `./llm` and `./cmd` and load only when used.
 */
export { CMD_JSONL_AGENT_KIND, LLM_AGENT_KINDS } from "./builtin-kinds.ts";
export type { AgentKind, ResolveAgent, ResolveContext, ResolvedAgent } from "./resolve.ts";
export { AgentResolver, isModulePath, loadModuleAgent } from "./resolve.ts";
