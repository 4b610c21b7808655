/** The LLM agent: one shared model caller (and endpoint limiter), a fresh session per episode. */
import type { Agent, AgentRef, EpisodeInfo } from "../../core/contracts.ts";
import type { ResolvedAgent } from "../resolve.ts";
import { FileResponseCache, type ResponseCache } from "./cache.ts";
import { type LlmAgentConfig, recordedConfig } from "./config.ts";
import { AimdLimiter } from "./limiter.ts";
import { ModelCaller } from "./model-call.ts";
import { nodeFetch } from "./node-fetch.ts";
import { type FetchFn, languageModel } from "./provider.ts";
import { LlmSession, type SkillSource } from "./session.ts";

export interface LlmAgentDeps {
  /** HTTP client (default: global fetch). */
  fetch?: FetchFn;
  /** Overrides the cache built from `config.cacheDir`. */
  cache?: ResponseCache;
  /** The endpoint's limiter, shared with the gym's other agents on it (default: one of its own). */
  limiter?: AimdLimiter;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Skills per task for the system prompt (e.g. `skillSource(bank)` of `proving/learn`); their ids go on the first action's `meta.skills`. */
  skills?: SkillSource;
}

export interface LlmAgent extends Agent {
  readonly config: LlmAgentConfig;
  readonly limiter: AimdLimiter;
  readonly cache?: ResponseCache;
}

export function createLlmAgent(config: LlmAgentConfig, deps: LlmAgentDeps = {}): LlmAgent {
  const limiter = deps.limiter ?? new AimdLimiter(config.limiter);
  const cache = deps.cache ?? (config.cacheDir ? new FileResponseCache(config.cacheDir) : undefined);
  const fetch = deps.fetch ?? (config.httpClient === "node" ? nodeFetch : undefined);
  const caller = new ModelCaller(config, languageModel(config, fetch), {
    limiter,
    ...(cache ? { cache } : {}),
    ...(deps.random ? { random: deps.random } : {}),
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
  });
  return {
    id: config.id,
    config,
    limiter,
    ...(cache ? { cache } : {}),
    start: (episode: EpisodeInfo) => new LlmSession(config, caller, episode, deps.skills),
  };
}

/** The agent as `--agent` resolution returns it: the ref records the config (without the key). */
export function resolvedLlmAgent(
  config: LlmAgentConfig,
  spec: string,
  deps: LlmAgentDeps = {},
): ResolvedAgent {
  const agent = createLlmAgent(config, deps);
  const recorded = recordedConfig(config);
  if (agent.cache) recorded.cache = agent.cache.location;
  const ref: AgentRef = { id: config.id, kind: "llm", spec, config: recorded };
  return { ref, forWorld: () => agent };
}
