import { configError } from "../core/errors.ts";
import type { JsonValue } from "../core/json.ts";
import type { Gym } from "../gym/gym.ts";
import { readDataFile } from "./context.ts";

/**
 * Reads one `--variant` value (for `run`, `serve` and `mcp` alike): a world id, inline JSON, or a
 * JSON/YAML file holding a variant, a list of variants, or `{variants: [...]}`.
 */
export function readVariantFlag(value: string, gym: Gym): JsonValue[] {
  if (!/[/\\.](json|ya?ml)$/i.test(value) && gym.registry.hasWorld(value)) return [value]; // a bare world
  let data: unknown;
  if (/^\s*[[{]/.test(value)) {
    try {
      data = JSON.parse(value);
    } catch (err) {
      throw configError("bad_variant", `--variant: not valid JSON: ${(err as Error).message}`);
    }
  } else {
    data = readDataFile(value);
  }
  if (Array.isArray(data)) return data as JsonValue[];
  const list = (data as { variants?: unknown } | null)?.variants;
  return (Array.isArray(list) ? list : [data]) as JsonValue[];
}

/** Exactly one variant from `--variant` (what a server or an MCP trial plays). */
export function readOneVariant(value: string, gym: Gym): JsonValue {
  const variants = readVariantFlag(value, gym);
  if (variants.length !== 1) {
    throw configError("bad_variant", `--variant: one variant is served at a time, got ${variants.length}`);
  }
  return variants[0];
}
