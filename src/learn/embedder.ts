/**
 * Embeddings through the provider layer: an OpenAI-wire embeddings endpoint (OpenAI, or any
 * compatible server such as the fake provider's `POST /v1/embeddings`), called with the AI SDK's
 * provider model (`doEmbed`). An embedder names its model `provider:model`, which a bank records.
 */
import type { FetchFn } from "../agents/llm/provider.ts";
import { importOptional } from "../core/optional-dependency.ts";

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

/** An embedder on an OpenAI-wire endpoint; the provider package loads at the first call. */
export function providerEmbedder(options: ProviderEmbedderOptions): Embedder {
  let loaded:
    | Promise<{
        doEmbed: (o: {
          values: string[];
          providerOptions?: Record<string, Record<string, number>>;
        }) => PromiseLike<{ embeddings: ArrayLike<number>[] }>;
      }>
    | undefined;
  const modelOf = () => {
    loaded ??= importOptional(() => import("@ai-sdk/openai")).then(({ createOpenAI }) =>
      createOpenAI({
        baseURL: options.baseURL,
        ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }).embedding(options.model),
    );
    return loaded;
  };
  return {
    model: `openai:${options.model}`,
    ...(options.dimensions !== undefined ? { dimensions: options.dimensions } : {}),
    async embed(texts) {
      if (texts.length === 0) return [];
      const model = await modelOf();
      const result = await model.doEmbed({
        values: [...texts],
        ...(options.dimensions !== undefined
          ? { providerOptions: { openai: { dimensions: options.dimensions } } }
          : {}),
      });
      return result.embeddings.map((e) => Array.from(e));
    },
  };
}
