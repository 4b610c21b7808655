import type { LlmAgentConfig } from "./config.ts";
import { AimdLimiter, type LimiterPool } from "./limiter.ts";
import type { ModelCaller } from "./model-call.ts";
import type { FetchFn } from "./provider.ts";

export interface LazyCallerOptions {
  /** The gym's per-endpoint limiters (shared with its LLM agents); a private limiter otherwise. */
  limiters?: LimiterPool;
  limiter?: AimdLimiter;
  fetch?: FetchFn;
}

/**
 * A model caller for an LLM that is not an agent (the rigger's designer and diagnoser, the skill
 * inducer, a simulated customer), built at the first call: the provider packages load where they are
 * used, not when the caller's module is imported.
 */
export function lazyModelCaller(
  config: LlmAgentConfig,
  opts: LazyCallerOptions = {},
): () => Promise<ModelCaller> {
  let caller: Promise<ModelCaller> | undefined;
  return () => {
    caller ??= (async () => {
      const [{ ModelCaller }, { endpointKey, languageModel }, { nodeFetch }] = await Promise.all([
        import("./model-call.ts"),
        import("./provider.ts"),
        import("./node-fetch.ts"),
      ]);
      const limiter =
        opts.limiter ??
        opts.limiters?.get(endpointKey(config), config.limiter) ??
        new AimdLimiter(config.limiter);
      const fetch = opts.fetch ?? (config.httpClient === "node" ? nodeFetch : undefined);
      return new ModelCaller(config, languageModel(config, fetch), { limiter });
    })();
    return caller;
  };
}
