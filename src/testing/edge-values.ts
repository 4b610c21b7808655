/**
 * Schema-VALID edge values for the bad-input check: arguments a tool's JSON Schema accepts, with one
 * leaf replaced by a value that breaks careless code — an empty string, a lone `%` (for
 * `decodeURIComponent`), a broken escape, unicode (astral, combining, right-to-left), NUL, a path,
 * prototype names, the longest string allowed; numbers at and past the usual ranges (0, -1, the
 * bounds, the largest safe integer, 1e308, a fraction). Only the cases the schema accepts are kept.
 */
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { Rng } from "../core/rng.ts";
import { sampleValue, validates } from "./json-schema.ts";

export interface EdgeCase {
  args: JsonObject;
  /** What was replaced: `query = "%"`. */
  how: string;
}

const EDGE_STRINGS = [
  "",
  "%",
  "%E0%A4%A",
  "\\",
  " ",
  "\u0000",
  "😀𝕏 é ñ 中文 \u202e",
  "../../../etc/passwd",
  "__proto__",
  "constructor",
  "null",
  "-1",
  "NaN",
  "1e309",
];

function edgeNumbers(schema: Record<string, unknown>): number[] {
  const out = [0, -1, 1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e308, -1e308, 0.5];
  for (const k of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
    const v = schema[k];
    if (typeof v === "number") out.push(v, v + 1, v - 1);
  }
  return out;
}

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** The leaves' edge values of one property schema (strings and numbers; else none). */
function edgesFor(schema: unknown): JsonValue[] {
  if (!isObject(schema)) return [];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const out: JsonValue[] = [];
  if (types.includes("string")) {
    out.push(...EDGE_STRINGS);
    const max = typeof schema.maxLength === "number" ? schema.maxLength : 10_000;
    if (max > 0 && max <= 100_000) out.push("x".repeat(max));
  }
  if (types.includes("number") || types.includes("integer")) out.push(...edgeNumbers(schema));
  for (const alt of [schema.anyOf, schema.oneOf].filter(Array.isArray) as unknown[][])
    for (const s of alt) out.push(...edgesFor(s));
  return out;
}

/**
 * Up to `max` schema-valid argument objects for a tool, each a valid sample with one top-level
 * property replaced by an edge value (optional properties included). Deterministic in `rng`.
 */
export function edgeArgs(schema: unknown, rng: Rng, pool: readonly string[], max: number): EdgeCase[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const base = sampleValue(schema, rng, pool);
  if (!isObject(base)) return [];
  const perKey = Object.entries(schema.properties).map(([key, prop]) => {
    const cases: EdgeCase[] = [];
    for (const value of edgesFor(prop)) {
      const args = { ...(base as JsonObject), [key]: value };
      if (!validates(schema, args)) continue;
      const shown =
        typeof value === "string" && value.length > 20 ? `"x"×${value.length}` : JSON.stringify(value);
      cases.push({ args, how: `${key} = ${shown}` });
    }
    return cases;
  });
  // round-robin over the properties, so every property gets its edges before the cap
  const out: EdgeCase[] = [];
  for (let i = 0; out.length < max && perKey.some((c) => i < c.length); i++)
    for (const cases of perKey) if (i < cases.length && out.length < max) out.push(cases[i]);
  return out;
}
