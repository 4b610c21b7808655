/**
 * Embeddings through the provider layer: an OpenAI-wire embeddings endpoint (OpenAI, or any
 * compatible server such as the fake provider's `POST /v1/embeddings`), called with the AI SDK's
 * provider model (`doEmbed`). An embedder names its model `provider:model`, which a bank records.
 */
import { createOpenAI } from "@ai-sdk/openai";
import type { FetchFn } from "../agents/llm/provider.ts";

export interface Embedder {
  /** `provider:model`, recorded by the bank built with it. */
  readonly model: string;
  /** Requested vector length, when the endpoint takes one. */
  readonly dimensions?: number;
  embed(texts: readonly string[]): Promise<number[][]>;
}

export interface ProviderEmbedderOptions {
  model: string;
  baseURL: string;
  apiKey?: string;
  dimensions?: number;
  fetch?: FetchFn;
}

export function providerEmbedder(options: ProviderEmbedderOptions): Embedder {
  const provider = createOpenAI({
    baseURL: options.baseURL,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const model = provider.embedding(options.model);
  return {
    model: `openai:${options.model}`,
    ...(options.dimensions !== undefined ? { dimensions: options.dimensions } : {}),
    async embed(texts) {
      if (texts.length === 0) return [];
      const result = await model.doEmbed({
        values: [...texts],
        ...(options.dimensions !== undefined
          ? { providerOptions: { openai: { dimensions: options.dimensions } } }
          : {}),
      });
      return result.embeddings.map((e) => [...e]);
    },
  };
}
