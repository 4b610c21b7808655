/**
 * Prices per million tokens, by `provider:model` or bare model id; a dated model id
 * (`gpt-4o-2024-08-06`) falls back to its longest listed prefix (`gpt-4o`).
 * The built-in table holds list prices as published when it was written: check your provider's
 * current prices and extend or override with `registerPrices` or a JSON file in `PROVING_LLM_PRICES`.
 */
import fs from "node:fs";
import { configError, errorMessage } from "../../core/errors.ts";

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

const BUILTIN: Record<string, ModelPrice> = {
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

const table = new Map<string, ModelPrice>(Object.entries(BUILTIN));
let envLoaded: string | undefined;

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

/** Adds or replaces prices; keys are `provider:model` or a bare model id (any provider). */
export function registerPrices(entries: Record<string, ModelPrice>): void {
  for (const [key, price] of Object.entries(entries)) table.set(key, checkPrice(key, price));
}

/** Loads `PROVING_LLM_PRICES` (a JSON file of `{key: {input, output}}`) once per distinct value. */
function loadEnvPrices(): void {
  const file = process.env.PROVING_LLM_PRICES;
  if (!file || file === envLoaded) return;
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw configError("bad_price", `cannot read PROVING_LLM_PRICES=${file}: ${errorMessage(err)}`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw configError("bad_price", `PROVING_LLM_PRICES=${file}: expected an object of prices`);
  }
  registerPrices(data as Record<string, ModelPrice>);
  envLoaded = file;
}

/** The price of a model, or undefined when no entry matches (its cost is then recorded as unknown). */
export function priceFor(provider: string, model: string): ModelPrice | undefined {
  loadEnvPrices();
  for (const key of [`${provider}:${model}`, model]) {
    const hit = table.get(key);
    if (hit) return hit;
  }
  let best: { len: number; price: ModelPrice } | undefined;
  for (const [key, price] of table) {
    const [kp, km] = key.includes(":")
      ? [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)]
      : ["", key];
    if (kp && kp !== provider) continue;
    if (model.startsWith(`${km}-`) && (!best || km.length > best.len)) best = { len: km.length, price };
  }
  return best?.price;
}

/** USD for one call. */
export function costUsd(price: ModelPrice, usage: TokenUsage): number {
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  const total =
    fresh * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output;
  return total / 1_000_000;
}
