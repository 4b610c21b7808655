/**
 * Seeded generator of malformed tool arguments: starting from arguments that satisfy the tool's
 * JSON Schema, it breaks them (wrong types, missing fields, extra fields, null, arrays, huge strings,
 * negative numbers, nested junk, non-object argument values). The caller keeps only the ones the
 * schema rejects (`validates` in json-schema.ts), so every kept case is truly malformed.
 */
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { Rng } from "../core/rng.ts";
import { sampleValue } from "./json-schema.ts";

export interface MalformedCase {
  /** What the tool receives as `args` (not always an object: agents and wire clients send anything). */
  args: unknown;
  /** The mutations applied, for failure messages. */
  how: string[];
  /** The one top-level field the case breaks, when exactly one was targeted. */
  field?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function hugeString(rng: Rng): string {
  const unit = rng.pick(["x", "é", "\u0000", "🙂", "<script>", "' OR 1=1 --", "\\", '"', "\n"]);
  return unit.repeat(Math.ceil(rng.int(10_000, 200_000) / unit.length));
}

/** A nested value of junk, `depth` levels deep. */
function nestedJunk(rng: Rng, depth: number): JsonValue {
  if (depth <= 0) return junkScalar(rng);
  const n = rng.int(1, 3);
  if (rng.bool()) return Array.from({ length: n }, () => nestedJunk(rng, depth - 1));
  const out: JsonObject = {};
  for (let i = 0; i < n; i++)
    out[rng.pick(["a", "$ref", "0", "", "constructor", rng.id(3)])] = nestedJunk(rng, depth - 1);
  return out;
}

function junkScalar(rng: Rng): JsonValue {
  return rng.pick<JsonValue>([
    null,
    true,
    false,
    0,
    -1,
    1.5,
    -987654321,
    Number.MAX_SAFE_INTEGER + 2,
    1e308,
    -1e308,
    "",
    " ",
    "null",
    "undefined",
    "0",
    "-1",
    "NaN",
    "[]",
    "{}",
    "true",
    rng.id(12),
  ]);
}

/** A value of some JSON type other than the one the schema property asks for. */
function wrongType(schema: unknown, rng: Rng): JsonValue {
  const declared = isObject(schema) ? schema.type : undefined;
  const types = new Set(Array.isArray(declared) ? declared : declared === undefined ? [] : [declared]);
  if (isObject(schema) && Array.isArray(schema.enum)) types.add("enum");
  const candidates: [string, () => JsonValue][] = [
    ["string", () => rng.pick(["", "wrong", "42", "true", hugeString(rng).slice(0, 300)])],
    ["number", () => rng.pick([42, -1, 0.5, 1e21, 0])],
    ["integer", () => rng.pick([7, -3, 0])],
    ["boolean", () => rng.bool()],
    ["null", () => null],
    ["array", () => [junkScalar(rng), junkScalar(rng)]],
    ["object", () => ({ value: junkScalar(rng) })],
  ];
  const options = candidates.filter(([t]) => {
    if (types.has(t)) return false;
    if (t === "integer" && types.has("number")) return false;
    return true;
  });
  return rng.pick(options)[1]();
}

const NON_OBJECT_ARGS: (() => unknown)[] = [
  () => null,
  () => [],
  () => [{}],
  () => "case_id",
  () => 42,
  () => true,
  () => JSON.parse('{"__proto__": {"polluted": true}}'),
];

/** One malformed argument value for a tool with this input schema. */
export function malformedArgs(schema: unknown, rng: Rng, pool: readonly string[]): MalformedCase {
  if (rng.bool(0.06)) {
    const make = rng.pick(NON_OBJECT_ARGS);
    const args = make();
    return { args, how: [`args = ${JSON.stringify(args)}`] };
  }
  const base = sampleValue(schema, rng, pool, { allProperties: true });
  const args: Record<string, unknown> = isObject(base) ? { ...base } : {};
  const props = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const names = Object.keys(props);
  const required = isObject(schema) && Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const how: string[] = [];
  const touched = new Set<string>();
  const mutations = rng.bool(0.75) ? 1 : rng.int(2, 4);
  for (let m = 0; m < mutations; m++) {
    const name = names.length ? rng.pick(names) : "value";
    const kind = rng.pick([
      "wrong-type",
      "wrong-type",
      "missing",
      "extra",
      "null",
      "array",
      "huge-string",
      "negative",
      "nested-junk",
      "empty-object",
    ]);
    switch (kind) {
      case "wrong-type":
        args[name] = wrongType(props[name], rng);
        touched.add(name);
        break;
      case "missing": {
        const gone = required.length ? rng.pick(required) : name;
        delete args[gone];
        touched.add(gone);
        how.push(`missing ${gone}`);
        continue;
      }
      case "extra": {
        const extra = rng.pick(["extra", "__proto__", "constructor", "toString", `x_${rng.id(5)}`, ""]);
        Object.defineProperty(args, extra, {
          value: nestedJunk(rng, rng.int(0, 2)),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        touched.add(extra);
        how.push(`extra ${JSON.stringify(extra)}`);
        continue;
      }
      case "null":
        args[name] = null;
        touched.add(name);
        break;
      case "array":
        args[name] = rng.bool() ? [] : [args[name] ?? junkScalar(rng)];
        touched.add(name);
        break;
      case "huge-string":
        args[name] = hugeString(rng);
        touched.add(name);
        break;
      case "negative":
        args[name] = rng.pick([-1, -0.5, -3600, -1e9, Number.MIN_SAFE_INTEGER]);
        touched.add(name);
        break;
      case "nested-junk":
        args[name] = nestedJunk(rng, rng.int(2, 5));
        touched.add(name);
        break;
      default:
        for (const key of Object.keys(args)) delete args[key];
        touched.add("*");
        break;
    }
    how.push(`${kind} ${name}`);
  }
  const field = touched.size === 1 && !touched.has("*") ? [...touched][0] : undefined;
  return { args, how, ...(field !== undefined ? { field } : {}) };
}
