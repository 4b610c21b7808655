/**
 * One model call as the gym makes it: cache lookup, a slot from the endpoint's adaptive limiter,
 * the provider call (`doGenerate`, no SDK retries: ours honour retry-after and feed the limiter),
 * normalization of the reply, cache store.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleepTimer } from "node:timers/promises";
import type { ToolDescriptor } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import { cacheKey, type ResponseCache } from "./cache.ts";
import type { LlmAgentConfig } from "./config.ts";
import type { AimdLimiter } from "./limiter.ts";
import type { TokenUsage } from "./prices.ts";
import type { GenerateResult, PromptMessage, ProviderModel } from "./provider.ts";
import { classifyFailure, finalError, type ProviderFailure, retryDelayMs } from "./retry.ts";
import { functionToolsFor, parseToolCall, type ReplyToolCall } from "./tool-calls.ts";

export interface ModelRequest {
  system: string;
  /** The conversation without the system prompt, in the provider-level prompt format. */
  messages: PromptMessage[];
  tools: readonly ToolDescriptor[];
}

export interface ModelReply {
  text: string;
  toolCalls: ReplyToolCall[];
  usage: TokenUsage;
  finishReason: string;
  modelId: string;
  warnings: string[];
}

export interface CallOutcome {
  reply: ModelReply;
  cached: boolean;
  /** Duration of the HTTP call that succeeded. */
  latencyMs: number;
  /** Time spent waiting for a limiter slot and in backoff. */
  waitMs: number;
  attempts: number;
  throttles: number;
  cacheKey?: string;
}

export interface CallerDeps {
  cache?: ResponseCache;
  limiter: AimdLimiter;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const defaultSleep = (ms: number, signal: AbortSignal) => sleepTimer(ms, undefined, { signal });

/** The reply in the gym's own terms: text, tool calls (with any parse problem), usage. */
function normalize(
  result: GenerateResult,
  tools: readonly ToolDescriptor[],
  fallbackModel: string,
): ModelReply {
  const offered = new Set(tools.map((t) => t.name));
  const text: string[] = [];
  const toolCalls: ReplyToolCall[] = [];
  for (const part of result.content) {
    if (part.type === "text" && part.text) text.push(part.text);
    else if (part.type === "tool-call" && !part.providerExecuted)
      toolCalls.push(parseToolCall(part, offered));
  }
  const input = result.usage.inputTokens;
  return {
    text: text.join("\n"),
    toolCalls,
    usage: {
      inputTokens: input.total ?? 0,
      outputTokens: result.usage.outputTokens.total ?? 0,
      ...(input.cacheRead ? { cachedInputTokens: input.cacheRead } : {}),
    },
    finishReason: result.finishReason.unified,
    modelId: result.response?.modelId ?? fallbackModel,
    warnings: result.warnings.map((w) => JSON.stringify(w)),
  };
}

export class ModelCaller {
  constructor(
    private readonly config: LlmAgentConfig,
    private readonly model: ProviderModel,
    private readonly deps: CallerDeps,
  ) {}

  /** The request as the cache sees it: everything that changes the answer, no secret. */
  private keyOf(request: ModelRequest): string {
    const c = this.config;
    return cacheKey({
      v: 1,
      provider: c.provider,
      baseURL: c.baseURL,
      model: c.model,
      settings: {
        temperature: c.temperature ?? null,
        maxOutputTokens: c.maxOutputTokens ?? null,
        seed: c.seed ?? null,
        toolChoice: c.toolChoice,
      },
      system: request.system,
      messages: request.messages,
      tools: request.tools,
    });
  }

  /**
   * One model reply, retried as the policy says. `until` (a `performance.now()` time: the trial's
   * deadline less a margin) bounds the retries: an attempt's timeout ends by then, and a retry whose
   * backoff would end past it is not made — the failure is thrown now (an infrastructure error
   * carrying the provider's last failure), so the trial ends `infra_error`, not the agent's `timeout`.
   */
  async call(request: ModelRequest, signal: AbortSignal, until?: number): Promise<CallOutcome> {
    const key = this.deps.cache ? this.keyOf(request) : undefined;
    if (key && this.deps.cache) {
      const hit = await this.deps.cache.get(key);
      if (hit !== undefined) {
        return {
          reply: hit as unknown as ModelReply,
          cached: true,
          latencyMs: 0,
          waitMs: 0,
          attempts: 0,
          throttles: 0,
          cacheKey: key,
        };
      }
    }
    const random = this.deps.random ?? Math.random;
    const sleep = this.deps.sleep ?? defaultSleep;
    const policy = this.config.retry;
    let waitMs = 0;
    let throttles = 0;
    for (let attempt = 0; ; attempt++) {
      const queued = performance.now();
      const permit = await this.deps.limiter.acquire(signal);
      const started = performance.now();
      waitMs += started - queued;
      const timeout = AbortSignal.timeout(
        until === undefined
          ? this.config.timeoutMs
          : Math.max(1, Math.floor(Math.min(this.config.timeoutMs, until - performance.now()))),
      );
      let failure: ProviderFailure;
      try {
        const c = this.config;
        const result = await this.model.doGenerate({
          prompt: [{ role: "system", content: request.system }, ...request.messages],
          tools: functionToolsFor(request.tools),
          toolChoice: { type: c.toolChoice },
          abortSignal: AbortSignal.any([signal, timeout]),
          ...(c.temperature !== undefined ? { temperature: c.temperature } : {}),
          ...(c.maxOutputTokens !== undefined ? { maxOutputTokens: c.maxOutputTokens } : {}),
          ...(c.seed !== undefined ? { seed: c.seed } : {}),
        });
        const latencyMs = performance.now() - started;
        const used = (result.usage.inputTokens.total ?? 0) + (result.usage.outputTokens.total ?? 0);
        permit.success({ tokens: Number.isFinite(used) ? used : 0 });
        const reply = normalize(result, request.tools, this.config.model);
        if (key && this.deps.cache) await this.deps.cache.put(key, reply as unknown as JsonObject);
        return {
          reply,
          cached: false,
          latencyMs,
          waitMs,
          attempts: attempt + 1,
          throttles,
          ...(key ? { cacheKey: key } : {}),
        };
      } catch (err) {
        failure = classifyFailure(err, timeout.aborted && !signal.aborted);
        if (failure.throttle) {
          throttles++;
          permit.throttled();
        } else permit.release();
      }
      const delay = retryDelayMs(failure, attempt, policy, random);
      if (delay === undefined || signal.aborted) throw finalError(failure, attempt + 1);
      if (until !== undefined && performance.now() + delay >= until)
        throw finalError(
          failure,
          attempt + 1,
          "retries stopped: the trial's time budget would run out first",
        );
      const before = performance.now();
      try {
        await sleep(delay, signal);
      } catch {
        throw finalError(failure, attempt + 1);
      }
      waitMs += performance.now() - before;
    }
  }
}
