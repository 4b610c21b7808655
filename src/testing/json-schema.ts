/**
 * A small JSON Schema (draft 2020-12) toolkit for the conformance checker, with no dependency:
 * - `schemaProblems(schema)`: structural check of a schema against the 2020-12 meta-schema rules for
 *   the keywords tools use (unknown keywords are reported, except `x-` extensions);
 * - `validates(schema, value)`: does a value satisfy the schema (the assertion keywords below)?
 * - `sampleValue(schema, rng, pool)`: a value generated to satisfy the schema (strings drawn from a pool).
 */
import type { JsonValue } from "../core/json.ts";
import type { Rng } from "../core/rng.ts";

type Schema = boolean | { [key: string]: unknown };

const TYPES = new Set(["null", "boolean", "object", "array", "number", "string", "integer"]);
const SCHEMA_KEYWORDS = [
  "additionalProperties",
  "items",
  "not",
  "propertyNames",
  "contains",
  "if",
  "then",
  "else",
];
const SCHEMA_ARRAY_KEYWORDS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const NON_NEGATIVE_INT_KEYWORDS = [
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "minContains",
  "maxContains",
];
const NUMBER_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];
const STRING_KEYWORDS = [
  "$schema",
  "$id",
  "$ref",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$comment",
  "title",
  "description",
  "format",
  "contentEncoding",
  "contentMediaType",
];
const BOOLEAN_KEYWORDS = ["uniqueItems", "deprecated", "readOnly", "writeOnly"];
const ANY_KEYWORDS = [
  "const",
  "default",
  "enum",
  "examples",
  "required",
  "dependentRequired",
  "multipleOf",
  "pattern",
  "type",
  "unevaluatedProperties",
  "unevaluatedItems",
  "$vocabulary",
  "contentSchema",
];
const KNOWN = new Set([
  ...SCHEMA_KEYWORDS,
  ...SCHEMA_ARRAY_KEYWORDS,
  ...SCHEMA_MAP_KEYWORDS,
  ...NON_NEGATIVE_INT_KEYWORDS,
  ...NUMBER_KEYWORDS,
  ...STRING_KEYWORDS,
  ...BOOLEAN_KEYWORDS,
  ...ANY_KEYWORDS,
]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function validRegex(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}

/** Resolves a local `$ref` (`#`, `#/a/b`, `#/$defs/x`) inside the root schema. */
function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  const pointer = ref.slice(1);
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined;
  for (const raw of pointer.slice(1).split("/")) {
    const part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isObject(node)) node = node[part];
    else return undefined;
  }
  return typeof node === "boolean" || isObject(node) ? node : undefined;
}

/** Everything structurally wrong with a schema, as `path: problem` lines (empty when valid). */
export function schemaProblems(schema: unknown, root: unknown = schema, at = "#"): string[] {
  if (typeof schema === "boolean") return [];
  if (!isObject(schema)) return [`${at}: a schema is an object or a boolean, got ${JSON.stringify(schema)}`];
  const out: string[] = [];
  const bad = (msg: string) => out.push(`${at}: ${msg}`);
  for (const [key, value] of Object.entries(schema)) {
    if (!KNOWN.has(key) && !key.startsWith("x-")) bad(`unknown keyword "${key}"`);
    if (SCHEMA_KEYWORDS.includes(key)) out.push(...schemaProblems(value, root, `${at}/${key}`));
    if (SCHEMA_ARRAY_KEYWORDS.includes(key)) {
      if (!Array.isArray(value) || value.length === 0) bad(`${key} must be a non-empty array of schemas`);
      else for (const [i, s] of value.entries()) out.push(...schemaProblems(s, root, `${at}/${key}/${i}`));
    }
    if (SCHEMA_MAP_KEYWORDS.includes(key)) {
      if (!isObject(value)) bad(`${key} must be an object of schemas`);
      else
        for (const [name, s] of Object.entries(value)) {
          if (key === "patternProperties" && !validRegex(name))
            bad(`patternProperties key /${name}/ is not a regex`);
          out.push(...schemaProblems(s, root, `${at}/${key}/${name}`));
        }
    }
    if (NON_NEGATIVE_INT_KEYWORDS.includes(key) && !(Number.isInteger(value) && (value as number) >= 0))
      bad(`${key} must be a non-negative integer`);
    if (NUMBER_KEYWORDS.includes(key) && !(typeof value === "number" && Number.isFinite(value)))
      bad(`${key} must be a number`);
    if (STRING_KEYWORDS.includes(key) && typeof value !== "string") bad(`${key} must be a string`);
    if (BOOLEAN_KEYWORDS.includes(key) && typeof value !== "boolean") bad(`${key} must be a boolean`);
  }
  const { type, required, enum: enumValues, pattern, multipleOf, examples, dependentRequired } = schema;
  if (type !== undefined) {
    const list = Array.isArray(type) ? type : [type];
    if (list.length === 0 || !list.every((t) => typeof t === "string" && TYPES.has(t)))
      bad(`type must be one of ${[...TYPES].join("|")} or a non-empty array of them`);
    if (new Set(list).size !== list.length) bad("type lists a type twice");
  }
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((r) => typeof r === "string"))
      bad("required must be an array of strings");
    else if (new Set(required).size !== required.length) bad("required lists a name twice");
    else if (schema.additionalProperties === false && isObject(schema.properties)) {
      for (const name of required)
        if (!Object.hasOwn(schema.properties, name) && !schema.patternProperties)
          bad(
            `required "${name}" can never be given: it is not a property and additionalProperties is false`,
          );
    }
  }
  if (enumValues !== undefined && !Array.isArray(enumValues)) bad("enum must be an array");
  if (examples !== undefined && !Array.isArray(examples)) bad("examples must be an array");
  if (pattern !== undefined && (typeof pattern !== "string" || !validRegex(pattern)))
    bad(`pattern ${JSON.stringify(pattern)} is not a valid ECMA-262 regex`);
  if (multipleOf !== undefined && !(typeof multipleOf === "number" && multipleOf > 0))
    bad("multipleOf must be a number > 0");
  if (dependentRequired !== undefined) {
    if (
      !isObject(dependentRequired) ||
      !Object.values(dependentRequired).every(
        (v) => Array.isArray(v) && v.every((s) => typeof s === "string"),
      )
    )
      bad("dependentRequired must map names to arrays of strings");
  }
  if (typeof schema.$ref === "string" && resolveRef(root as Schema, schema.$ref) === undefined)
    bad(`$ref ${schema.$ref} does not resolve inside the document`);
  const pairs: [string, string][] = [
    ["minLength", "maxLength"],
    ["minItems", "maxItems"],
    ["minimum", "maximum"],
    ["minProperties", "maxProperties"],
  ];
  for (const [lo, hi] of pairs) {
    if (
      typeof schema[lo] === "number" &&
      typeof schema[hi] === "number" &&
      (schema[lo] as number) > (schema[hi] as number)
    )
      bad(`${lo} > ${hi}: nothing can satisfy it`);
  }
  return out;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function matchesType(type: string, value: unknown): boolean {
  if (type === "integer") return typeof value === "number" && Number.isInteger(value);
  if (type === "number") return typeof value === "number" && Number.isFinite(value);
  return typeOf(value) === type;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeOf(a) !== typeOf(b) || typeof a !== "object" || a === null) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) =>
        Object.hasOwn(b as object, k) &&
        jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

/** Code points of a string (a surrogate pair is one), counted without building an array. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * `minLength`/`maxLength` in code points. A string has between length/2 and length code points, so
 * only a string near a bound is counted (malformed cases send strings of 200,000 units).
 */
function lengthWithin(value: string, min: unknown, max: unknown): boolean {
  const lo = typeof min === "number" ? min : 0;
  const hi = typeof max === "number" ? max : Number.POSITIVE_INFINITY;
  if (value.length < lo || value.length / 2 > hi) return false;
  if (value.length / 2 >= lo && value.length <= hi) return true;
  const n = codePoints(value);
  return n >= lo && n <= hi;
}

/** Does `value` satisfy `schema`? (Assertion keywords of 2020-12; `format` is an annotation.) */
export function validates(schema: unknown, value: unknown, root: unknown = schema): boolean {
  if (schema === true || schema === undefined) return true;
  if (schema === false) return false;
  if (!isObject(schema)) return false;
  const s = schema;
  if (typeof s.$ref === "string") {
    const target = resolveRef(root as Schema, s.$ref);
    if (target === undefined || !validates(target, value, root)) return false;
  }
  if (s.type !== undefined) {
    const list = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!list.some((t) => matchesType(t, value))) return false;
  }
  if (s.const !== undefined && !jsonEqual(s.const, value)) return false;
  if (Array.isArray(s.enum) && !s.enum.some((e) => jsonEqual(e, value))) return false;
  if (Array.isArray(s.allOf) && !s.allOf.every((x) => validates(x, value, root))) return false;
  if (Array.isArray(s.anyOf) && !s.anyOf.some((x) => validates(x, value, root))) return false;
  if (Array.isArray(s.oneOf) && s.oneOf.filter((x) => validates(x, value, root)).length !== 1) return false;
  if (s.not !== undefined && validates(s.not, value, root)) return false;
  if (s.if !== undefined) {
    const branch = validates(s.if, value, root) ? s.then : s.else;
    if (branch !== undefined && !validates(branch, value, root)) return false;
  }
  if (typeof value === "number") {
    if (typeof s.minimum === "number" && value < s.minimum) return false;
    if (typeof s.maximum === "number" && value > s.maximum) return false;
    if (typeof s.exclusiveMinimum === "number" && value <= s.exclusiveMinimum) return false;
    if (typeof s.exclusiveMaximum === "number" && value >= s.exclusiveMaximum) return false;
    if (typeof s.multipleOf === "number" && !Number.isInteger(value / s.multipleOf)) return false;
  }
  if (typeof value === "string") {
    if (!lengthWithin(value, s.minLength, s.maxLength)) return false;
    if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(value)) return false;
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === "number" && value.length < s.minItems) return false;
    if (typeof s.maxItems === "number" && value.length > s.maxItems) return false;
    if (s.uniqueItems === true && value.some((x, i) => value.findIndex((y) => jsonEqual(x, y)) !== i))
      return false;
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
    for (let i = 0; i < value.length; i++) {
      const itemSchema = i < prefix.length ? prefix[i] : s.items;
      if (itemSchema !== undefined && !validates(itemSchema, value[i], root)) return false;
    }
    if (s.contains !== undefined) {
      const n = value.filter((x) => validates(s.contains, x, root)).length;
      if (n < (typeof s.minContains === "number" ? s.minContains : 1)) return false;
      if (typeof s.maxContains === "number" && n > s.maxContains) return false;
    }
  }
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (typeof s.minProperties === "number" && keys.length < s.minProperties) return false;
    if (typeof s.maxProperties === "number" && keys.length > s.maxProperties) return false;
    if (Array.isArray(s.required) && !s.required.every((r) => Object.hasOwn(value, r as string)))
      return false;
    const props = isObject(s.properties) ? s.properties : {};
    const patterns = isObject(s.patternProperties) ? Object.entries(s.patternProperties) : [];
    for (const key of keys) {
      let matched = false;
      if (Object.hasOwn(props, key)) {
        matched = true;
        if (!validates(props[key], value[key], root)) return false;
      }
      for (const [re, ps] of patterns) {
        if (new RegExp(re, "u").test(key)) {
          matched = true;
          if (!validates(ps, value[key], root)) return false;
        }
      }
      if (
        !matched &&
        s.additionalProperties !== undefined &&
        !validates(s.additionalProperties, value[key], root)
      )
        return false;
      if (s.propertyNames !== undefined && !validates(s.propertyNames, key, root)) return false;
    }
    if (isObject(s.dependentRequired)) {
      for (const [k, needs] of Object.entries(s.dependentRequired))
        if (Object.hasOwn(value, k) && !(needs as string[]).every((n) => Object.hasOwn(value, n)))
          return false;
    }
  }
  return true;
}

export interface SampleOptions {
  /** Include every optional property (default: each with probability 0.7). */
  allProperties?: boolean;
  root?: unknown;
  depth?: number;
}

/**
 * A value generated to satisfy `schema` (best effort: `pattern` and `not` are not solved). Strings
 * are drawn from `pool` (ids the episode has shown) most of the time, so calls reach real entities.
 */
export function sampleValue(
  schema: unknown,
  rng: Rng,
  pool: readonly string[],
  opts: SampleOptions = {},
): JsonValue {
  const root = opts.root ?? schema;
  const depth = opts.depth ?? 0;
  const next = (s: unknown) => sampleValue(s, rng, pool, { ...opts, root, depth: depth + 1 });
  if (!isObject(schema)) return rng.pick(pool.length ? pool : ["x"]);
  if (typeof schema.$ref === "string") return next(resolveRef(root as Schema, schema.$ref));
  if (schema.const !== undefined) return schema.const as JsonValue;
  if (Array.isArray(schema.enum) && schema.enum.length) return rng.pick(schema.enum) as JsonValue;
  for (const k of ["anyOf", "oneOf"]) {
    const list = schema[k];
    if (Array.isArray(list) && list.length) return next(rng.pick(list));
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length) return next(schema.allOf[0]);
  const types =
    schema.type === undefined ? undefined : Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = (
    types ? rng.pick(types as string[]) : isObject(schema.properties) ? "object" : "string"
  ) as string;
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return rng.bool();
    case "integer":
    case "number": {
      const lo = Math.ceil(
        typeof schema.minimum === "number"
          ? schema.minimum
          : typeof schema.exclusiveMinimum === "number"
            ? schema.exclusiveMinimum + 1
            : 0,
      );
      const hi = Math.floor(
        typeof schema.maximum === "number"
          ? schema.maximum
          : typeof schema.exclusiveMaximum === "number"
            ? schema.exclusiveMaximum - 1
            : lo + 100,
      );
      const span = Math.min(hi, lo + 120);
      return rng.bool(0.15) ? lo : rng.int(lo, Math.max(lo, span));
    }
    case "string": {
      const min = typeof schema.minLength === "number" ? schema.minLength : 0;
      const max = typeof schema.maxLength === "number" ? schema.maxLength : 64;
      const fits = pool.filter((p) => p.length >= min && p.length <= max);
      if (fits.length && rng.bool(0.8)) return rng.pick(fits);
      let s = rng.id(Math.max(1, Math.min(max, min + rng.int(1, 8))));
      while (s.length < min) s += rng.id(4);
      return s.slice(0, max);
    }
    case "array": {
      const min = typeof schema.minItems === "number" ? schema.minItems : 0;
      const n = depth > 3 ? min : rng.int(min, min + 2);
      const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
      return Array.from({ length: n }, (_, i) => next(i < prefix.length ? prefix[i] : schema.items));
    }
    default: {
      const out: Record<string, JsonValue> = {};
      const props = isObject(schema.properties) ? schema.properties : {};
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      for (const [name, ps] of Object.entries(props)) {
        if (required.has(name) || opts.allProperties || rng.bool(0.7)) out[name] = next(ps);
      }
      return out;
    }
  }
}
