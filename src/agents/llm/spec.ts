/**
 * `--agent` specs of LLM agents, read with the environment:
 *   openai:MODEL[?OPTIONS]                (OPENAI_API_KEY, OPENAI_BASE_URL)
 *   anthropic:MODEL[?OPTIONS]             (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)
 *   openai-compatible:MODEL@URL[?OPTIONS] (OPENAI_COMPATIBLE_API_KEY, optional)
 * OPTIONS are `key=value` joined by `&` (URL-encoded); a template value `@FILE` is read from a file.
 * `PROVING_LLM_CACHE=DIR` turns the response cache on for every LLM agent (`cache=off` opts out).
 */
import fs from "node:fs";
import path from "node:path";
import { configError, errorMessage } from "../../core/errors.ts";
import { DEFAULT_BASE_URL, defaultConfig, type LlmAgentConfig, type ProviderKind } from "./config.ts";
import type { PriceTable } from "./prices.ts";
import { checkTemplate, type PromptTemplates } from "./templates.ts";

export interface SpecContext {
  cwd: string;
  env: Record<string, string | undefined>;
  /** The gym's price table (a model without an entry has unknown cost). */
  prices: PriceTable;
}

type Setter = (c: LlmAgentConfig, value: string, ctx: SpecContext) => void;

function num(key: string, value: string, opts: { int?: boolean; min?: number; max?: number } = {}): number {
  const n = Number(value);
  const bad =
    value.trim() === "" ||
    !Number.isFinite(n) ||
    (opts.int && !Number.isInteger(n)) ||
    (opts.min !== undefined && n < opts.min) ||
    (opts.max !== undefined && n > opts.max);
  if (bad) {
    const range = [
      opts.min !== undefined ? `>= ${opts.min}` : "",
      opts.max !== undefined ? `<= ${opts.max}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    throw configError(
      "bad_agent_option",
      `${key}=${value}: expected ${opts.int ? "an integer" : "a number"}${range ? ` ${range}` : ""}`,
    );
  }
  return n;
}

function text(value: string, ctx: SpecContext, key: string): string {
  if (!value.startsWith("@")) return value;
  const file = path.resolve(ctx.cwd, value.slice(1));
  try {
    return fs.readFileSync(file, "utf8");
  } catch (err) {
    throw configError("bad_agent_option", `${key}=${value}: cannot read ${file}: ${errorMessage(err)}`);
  }
}

const template =
  (which: keyof PromptTemplates): Setter =>
  (c, v, ctx) => {
    const t = text(v, ctx, which);
    checkTemplate(which, t);
    c.templates[which] = t;
  };

const OPTIONS: Record<string, Setter> = {
  id: (c, v) => {
    c.id = v;
  },
  temperature: (c, v) => {
    c.temperature = num("temperature", v, { min: 0, max: 2 });
  },
  maxOutputTokens: (c, v) => {
    c.maxOutputTokens = num("maxOutputTokens", v, { int: true, min: 1 });
  },
  seed: (c, v) => {
    c.seed = num("seed", v, { int: true });
  },
  toolChoice: (c, v) => {
    if (v !== "auto" && v !== "required")
      throw configError("bad_agent_option", `toolChoice=${v}: auto or required`);
    c.toolChoice = v;
  },
  maxNudges: (c, v) => {
    c.maxNudges = num("maxNudges", v, { int: true, min: 0 });
  },
  timeoutMs: (c, v) => {
    c.timeoutMs = num("timeoutMs", v, { int: true, min: 1 });
  },
  http: (c, v) => {
    if (v !== "node" && v !== "fetch") throw configError("bad_agent_option", `http=${v}: node or fetch`);
    c.httpClient = v;
  },
  maxRetries: (c, v) => {
    c.retry.maxRetries = num("maxRetries", v, { int: true, min: 0 });
  },
  retryBaseMs: (c, v) => {
    c.retry.baseDelayMs = num("retryBaseMs", v, { min: 0 });
  },
  retryMaxMs: (c, v) => {
    c.retry.maxDelayMs = num("retryMaxMs", v, { min: 0 });
  },
  maxRetryAfterMs: (c, v) => {
    c.retry.maxRetryAfterMs = num("maxRetryAfterMs", v, { min: 0 });
  },
  concurrency: (c, v) => {
    c.limiter.initial = num("concurrency", v, { int: true, min: 1 });
  },
  maxConcurrency: (c, v) => {
    c.limiter.max = num("maxConcurrency", v, { int: true, min: 1 });
  },
  cache: (c, v, ctx) => {
    if (v === "off" || v === "") delete c.cacheDir;
    else c.cacheDir = path.resolve(ctx.cwd, v);
  },
  baseURL: (c, v) => {
    c.baseURL = checkUrl(v, "baseURL");
  },
  apiKeyEnv: (c, v, ctx) => {
    c.apiKeyEnv = v;
    const key = ctx.env[v];
    if (!key)
      throw configError("missing_api_key", `apiKeyEnv=${v}: the environment variable ${v} is not set`);
    c.apiKey = key;
  },
  priceIn: (c, v) => {
    c.price = { ...(c.price ?? { input: 0, output: 0 }), input: num("priceIn", v, { min: 0 }) };
  },
  priceOut: (c, v) => {
    c.price = { ...(c.price ?? { input: 0, output: 0 }), output: num("priceOut", v, { min: 0 }) };
  },
  system: template("system"),
  instruction: template("instruction"),
  toolResult: template("toolResult"),
  noToolCall: template("noToolCall"),
};

function checkUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw configError("bad_agent_spec", `${what}: "${value}" is not a URL (e.g. http://localhost:8000/v1)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw configError("bad_agent_spec", `${what}: "${value}" must be http(s)`);
  }
  return value.replace(/\/+$/, "");
}

/** `ANTHROPIC_BASE_URL` as Anthropic's own SDK reads it has no `/v1`; the AI SDK wants it. */
function anthropicBase(value: string): string {
  const url = checkUrl(value, "ANTHROPIC_BASE_URL");
  return /\/v\d+$/.test(url) ? url : `${url}/v1`;
}

const KEY_ENV: Record<ProviderKind, string> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  "openai-compatible": "OPENAI_COMPATIBLE_API_KEY",
};

/** Parses the part after `provider:` into a full agent config. */
export function parseLlmSpec(provider: ProviderKind, rest: string, ctx: SpecContext): LlmAgentConfig {
  const q = rest.indexOf("?");
  const head = q >= 0 ? rest.slice(0, q) : rest;
  const query = q >= 0 ? rest.slice(q + 1) : "";
  let model = head;
  let baseURL: string | undefined;
  if (provider === "openai-compatible") {
    const at = head.search(/@https?:\/\//);
    if (at <= 0) {
      throw configError(
        "bad_agent_spec",
        `openai-compatible:${rest}: expected openai-compatible:MODEL@URL, e.g. openai-compatible:llama3.1@http://localhost:11434/v1`,
      );
    }
    model = head.slice(0, at);
    baseURL = checkUrl(head.slice(at + 1), "URL");
  } else if (provider === "openai") {
    baseURL = ctx.env.OPENAI_BASE_URL
      ? checkUrl(ctx.env.OPENAI_BASE_URL, "OPENAI_BASE_URL")
      : DEFAULT_BASE_URL.openai;
  } else {
    baseURL = ctx.env.ANTHROPIC_BASE_URL
      ? anthropicBase(ctx.env.ANTHROPIC_BASE_URL)
      : DEFAULT_BASE_URL.anthropic;
  }
  if (model.trim() === "")
    throw configError("bad_agent_spec", `${provider}:${rest}: the model name is missing`);
  const config = defaultConfig(provider, model, baseURL as string);
  const cacheEnv = ctx.env.PROVING_LLM_CACHE;
  if (cacheEnv) config.cacheDir = path.resolve(ctx.cwd, cacheEnv);
  for (const [key, value] of new URLSearchParams(query)) {
    const set = OPTIONS[key];
    if (!set) {
      throw configError(
        "bad_agent_option",
        `unknown option "${key}" in ${provider}:${rest} (known: ${Object.keys(OPTIONS).join(", ")})`,
      );
    }
    set(config, value, ctx);
  }
  if (config.apiKey === undefined) {
    const envName = KEY_ENV[provider];
    const key = ctx.env[envName];
    if (key) {
      config.apiKey = key;
      config.apiKeyEnv = envName;
    } else if (provider !== "openai-compatible" && config.baseURL === DEFAULT_BASE_URL[provider]) {
      throw configError(
        "missing_api_key",
        `${provider}:${model} needs ${envName} (set it in the environment)`,
      );
    } else if (provider !== "openai-compatible") {
      // a local or proxy endpoint that takes no key; the SDK insists on one
      config.apiKey = "not-needed";
    }
  }
  const price = config.price ?? ctx.prices.get(provider, model);
  if (price) config.price = price;
  return config;
}
