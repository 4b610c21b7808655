/**
 * Prices per million tokens, by `provider:model` or bare model id; a dated model id
 * (`gpt-4o-2024-08-06`) falls back to its longest listed prefix (`gpt-4o`).
 * The built-in table holds list prices as published when it was written: check your provider's
 * current prices and extend or override them in the gym (`createGym({prices})`, or a JSON file named
 * by `PROVING_LLM_PRICES` for the CLI). A table is an instance owned by its gym: nothing global.
 */
import { configError } from "../../core/errors.ts";

export interface ModelPrice {
  /** USD per 1M input tokens. */
  input: number;
  /** USD per 1M output tokens. */
  output: number;
  /** USD per 1M input tokens read from the provider's prompt cache (default: `input`). */
  cachedInput?: number;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
}

/** List prices as published when this table was written (USD per 1M tokens). */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = {
  "openai:gpt-4o": { input: 2.5, output: 10, cachedInput: 1.25 },
  "openai:gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 },
  "openai:gpt-4.1": { input: 2, output: 8, cachedInput: 0.5 },
  "openai:gpt-4.1-mini": { input: 0.4, output: 1.6, cachedInput: 0.1 },
  "openai:gpt-4.1-nano": { input: 0.1, output: 0.4, cachedInput: 0.025 },
  "openai:o3": { input: 2, output: 8, cachedInput: 0.5 },
  "openai:o4-mini": { input: 1.1, output: 4.4, cachedInput: 0.275 },
  "openai:gpt-5": { input: 1.25, output: 10, cachedInput: 0.125 },
  "openai:gpt-5-mini": { input: 0.25, output: 2, cachedInput: 0.025 },
  "openai:gpt-5-nano": { input: 0.05, output: 0.4, cachedInput: 0.005 },
  "anthropic:claude-3-5-haiku": { input: 0.8, output: 4, cachedInput: 0.08 },
  "anthropic:claude-3-5-sonnet": { input: 3, output: 15, cachedInput: 0.3 },
  "anthropic:claude-3-7-sonnet": { input: 3, output: 15, cachedInput: 0.3 },
  "anthropic:claude-sonnet-4": { input: 3, output: 15, cachedInput: 0.3 },
  "anthropic:claude-sonnet-4-5": { input: 3, output: 15, cachedInput: 0.3 },
  "anthropic:claude-haiku-4-5": { input: 1, output: 5, cachedInput: 0.1 },
  "anthropic:claude-opus-4": { input: 15, output: 75, cachedInput: 1.5 },
  "anthropic:claude-opus-4-1": { input: 15, output: 75, cachedInput: 1.5 },
};

function checkPrice(key: string, price: unknown): ModelPrice {
  const p = price as ModelPrice;
  const ok = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0;
  if (typeof p !== "object" || p === null || !ok(p.input) || !ok(p.output)) {
    throw configError(
      "bad_price",
      `price of "${key}": expected {input, output[, cachedInput]} in USD per 1M tokens`,
    );
  }
  if (p.cachedInput !== undefined && !ok(p.cachedInput)) {
    throw configError("bad_price", `price of "${key}": cachedInput must be a number >= 0`);
  }
  return {
    input: p.input,
    output: p.output,
    ...(p.cachedInput !== undefined ? { cachedInput: p.cachedInput } : {}),
  };
}

/** A price table: the built-in prices plus the gym's own entries (which win). */
export class PriceTable {
  readonly #table: Map<string, ModelPrice>;
  /** The entries added on top of the built-ins, as given (part of the gym's description). */
  readonly #added: Record<string, ModelPrice> = {};

  constructor(
    entries: Record<string, unknown> = {},
    builtin: Readonly<Record<string, ModelPrice>> = BUILTIN_PRICES,
  ) {
    this.#table = new Map(Object.entries(builtin));
    this.add(entries);
  }

  /** Adds or replaces prices; keys are `provider:model` or a bare model id (any provider). */
  add(entries: Record<string, unknown>): this {
    if (typeof entries !== "object" || entries === null || Array.isArray(entries)) {
      throw configError("bad_price", "prices: expected an object of {key: {input, output}}");
    }
    for (const [key, price] of Object.entries(entries)) {
      const checked = checkPrice(key, price);
      this.#table.set(key, checked);
      this.#added[key] = checked;
    }
    return this;
  }

  /** The entries added on top of the built-in table. */
  added(): Record<string, ModelPrice> {
    return structuredClone(this.#added);
  }

  /** The price of a model, or undefined when no entry matches (its cost is then recorded as unknown). */
  get(provider: string, model: string): ModelPrice | undefined {
    for (const key of [`${provider}:${model}`, model]) {
      const hit = this.#table.get(key);
      if (hit) return hit;
    }
    let best: { len: number; price: ModelPrice } | undefined;
    for (const [key, price] of this.#table) {
      const colon = key.indexOf(":");
      const [kp, km] = colon >= 0 ? [key.slice(0, colon), key.slice(colon + 1)] : ["", key];
      if (kp && kp !== provider) continue;
      if (model.startsWith(`${km}-`) && (!best || km.length > best.len)) best = { len: km.length, price };
    }
    return best?.price;
  }
}

/** USD for one call. */
export function costUsd(price: ModelPrice, usage: TokenUsage): number {
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  const total =
    fresh * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output;
  return total / 1_000_000;
}
