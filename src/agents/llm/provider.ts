/**
 * Provider adapters: the AI SDK provider model (LanguageModelV3) of each provider kind. The agent
 * calls `doGenerate` on it directly: the provider package does the wire format, auth, response
 * validation and usage normalization; `generateText`'s orchestration (tool execution, retries,
 * multi-step, prompt re-validation) is not wanted here, and it cost ~3.0 ms CPU per call against
 * ~0.27 ms for `doGenerate` with the same canned response (measured while writing this).
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LlmAgentConfig } from "./config.ts";

export type FetchFn = typeof globalThis.fetch;

/** The provider-level model interface (LanguageModelV3), as the provider packages return it. */
export type ProviderModel = ReturnType<ReturnType<typeof createOpenAI>["chat"]>;
export type CallOptions = Parameters<ProviderModel["doGenerate"]>[0];
export type GenerateResult = Awaited<ReturnType<ProviderModel["doGenerate"]>>;
export type PromptMessage = CallOptions["prompt"][number];
export type FunctionTool = Extract<NonNullable<CallOptions["tools"]>[number], { type: "function" }>;

export function languageModel(config: LlmAgentConfig, fetch?: FetchFn): ProviderModel {
  const common = {
    baseURL: config.baseURL,
    ...(config.apiKey !== undefined ? { apiKey: config.apiKey } : {}),
    ...(fetch ? { fetch } : {}),
  };
  switch (config.provider) {
    case "openai":
      // chat completions (not the responses API): the wire format every compatible server speaks
      return createOpenAI(common).chat(config.model);
    case "anthropic":
      return createAnthropic(common).messages(config.model);
    case "openai-compatible":
      return createOpenAICompatible({ name: "openai-compatible", includeUsage: true, ...common }).chatModel(
        config.model,
      );
  }
}

/** The key of the endpoint's shared concurrency limiter. */
export function endpointKey(config: LlmAgentConfig): string {
  return `${config.provider}|${config.baseURL}`;
}
