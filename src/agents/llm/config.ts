/** The configuration of an LLM agent, and the part of it a trial record keeps. */
import type { JsonObject } from "../../core/json.ts";
import type { LimiterOptions } from "./limiter.ts";
import type { ModelPrice } from "./prices.ts";
import { DEFAULT_RETRY, type RetryPolicy } from "./retry-policy.ts";
import { DEFAULT_TEMPLATES, type PromptTemplates } from "./templates.ts";

export type ProviderKind = "openai" | "anthropic" | "openai-compatible";
export const PROVIDERS: readonly ProviderKind[] = ["openai", "anthropic", "openai-compatible"];

export const DEFAULT_BASE_URL: Record<ProviderKind, string | undefined> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
  "openai-compatible": undefined,
};

export interface LlmAgentConfig {
  /** Display id (`openai:gpt-4o` unless set). */
  id: string;
  provider: ProviderKind;
  model: string;
  /** Including the version path, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  baseURL: string;
  /** Never recorded. */
  apiKey?: string;
  /** The environment variable the key came from (recorded, so a rerun knows what to set). */
  apiKeyEnv?: string;
  templates: PromptTemplates;
  temperature?: number;
  maxOutputTokens?: number;
  seed?: number;
  /** `required` forces a tool call where the provider supports it. */
  toolChoice: "auto" | "required";
  /** Replies without a tool call answered with a reminder before the agent gives up (`agent_error`). */
  maxNudges: number;
  /** Per HTTP call. */
  timeoutMs: number;
  /** HTTP client: `node` (keep-alive node:http(s), the default: less CPU per call) or the global `fetch`. */
  httpClient: "node" | "fetch";
  retry: RetryPolicy;
  limiter: LimiterOptions;
  /** Response cache directory (opt-in). */
  cacheDir?: string;
  /** Price used for cost; undefined = unknown (cost recorded as 0 with `costUnknown`). */
  price?: ModelPrice;
}

export function defaultConfig(provider: ProviderKind, model: string, baseURL: string): LlmAgentConfig {
  return {
    id: `${provider}:${model}`,
    provider,
    model,
    baseURL,
    templates: { ...DEFAULT_TEMPLATES },
    toolChoice: "auto",
    maxNudges: 2,
    timeoutMs: 120_000,
    httpClient: "node",
    retry: { ...DEFAULT_RETRY },
    limiter: { initial: 8, max: 256 },
  };
}

/** What goes in `AgentRef.config`: everything needed to rebuild the agent, minus secrets. */
export function recordedConfig(c: LlmAgentConfig): JsonObject {
  const out: JsonObject = {
    provider: c.provider,
    model: c.model,
    baseURL: c.baseURL,
    systemPrompt: c.templates.system,
    instructionTemplate: c.templates.instruction,
    toolResultTemplate: c.templates.toolResult,
    noToolCallTemplate: c.templates.noToolCall,
    toolChoice: c.toolChoice,
    maxNudges: c.maxNudges,
    timeoutMs: c.timeoutMs,
    httpClient: c.httpClient,
    retry: { ...c.retry },
    limiter: { ...c.limiter } as JsonObject,
    cache: c.cacheDir ?? null,
    price: c.price ? { ...c.price } : null,
  };
  if (c.apiKeyEnv) out.apiKeyEnv = c.apiKeyEnv;
  if (c.temperature !== undefined) out.temperature = c.temperature;
  if (c.maxOutputTokens !== undefined) out.maxOutputTokens = c.maxOutputTokens;
  if (c.seed !== undefined) out.seed = c.seed;
  return out;
}
