import { z } from "zod";
import type { ModelPrice } from "../agents/llm/prices.ts";
import { configError } from "../core/errors.ts";

export const GYM_SCHEMA_VERSION = 1;

/**
 * A gym as plain JSON (`gym.describe()`): which worlds, rules, hand-offs and agent kinds it has (by id),
 * the prices it adds, and the plugin modules its custom parts come from. `loadGym` builds the same gym
 * from it in another process. The environment (API keys) is never part of it.
 */
export interface GymDescription {
  schemaVersion: typeof GYM_SCHEMA_VERSION;
  /** Module specifiers (package names, or paths resolved against the loader's cwd) of gym plugins. */
  plugins: string[];
  worlds: string[];
  rules: string[];
  handoffs: string[];
  agentKinds: string[];
  prices: Record<string, ModelPrice>;
}

const price = z
  .object({ input: z.number().min(0), output: z.number().min(0), cachedInput: z.number().min(0).optional() })
  .strict();

const ids = z.array(z.string().min(1)).default([]);

const schema = z
  .object({
    schemaVersion: z.literal(GYM_SCHEMA_VERSION),
    plugins: ids,
    worlds: ids,
    rules: ids,
    handoffs: ids,
    agentKinds: ids,
    prices: z.record(z.string(), price).default({}),
  })
  .strict();

/** Checks a gym description (e.g. read from a file); errors name the offending field. */
export function parseGymDescription(input: unknown, where = "gym description"): GymDescription {
  const r = schema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    const at = issue.path.length ? `.${issue.path.join(".")}` : "";
    throw configError("bad_gym", `${where}${at}: ${issue.message}`);
  }
  return r.data as GymDescription;
}
