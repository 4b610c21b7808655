import type { z } from "zod";

/**
 * A fast path in front of zod for tool arguments. Tool schemas are small strict objects of strings,
 * numbers, enums and arrays; for those, a plain check answers "certainly valid" (with exactly the
 * value zod would return: a new object, keys in schema order, absent optionals absent) in a fraction
 * of zod's time. Anything it is not sure about returns `undefined`, and the caller asks zod, which
 * stays the one source of verdicts and error messages. Schemas using anything else (transforms,
 * defaults, formats, patterns, unions...) are not compiled at all.
 */
export type FastCheck = (input: unknown) => { value: unknown } | undefined;

/** Checks a value; returns the parsed value, or NO when unsure. */
type Check = (input: unknown) => unknown;

const NO: unique symbol = Symbol("no");

interface ZodDefLike {
  type: string;
  checks?: Array<{ _zod: { def: Record<string, unknown> } }>;
  coerce?: boolean;
  shape?: Record<string, { _zod: { def: ZodDefLike; optin?: string; optout?: string } }>;
  catchall?: { _zod: { def: { type: string } } };
  innerType?: { _zod: { def: ZodDefLike } };
  element?: { _zod: { def: ZodDefLike } };
  entries?: Record<string, unknown>;
}

class Unsupported extends Error {}

const defOf = (schema: unknown): ZodDefLike => (schema as { _zod: { def: ZodDefLike } })._zod.def;

/**
 * The definitions of a schema's checks. A check's `when` (zod's "run this check only if ...") is
 * ignored on purpose: it can only make zod skip a check, so applying every check is the stricter side.
 */
function checkDefs(def: ZodDefLike): Array<Record<string, unknown>> {
  return (def.checks ?? []).map((c) => c._zod.def);
}

function compileString(def: ZodDefLike): Check {
  if (def.coerce) throw new Unsupported();
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  for (const c of checkDefs(def)) {
    if (c.check === "min_length" && typeof c.minimum === "number") min = Math.max(min, c.minimum);
    else if (c.check === "max_length" && typeof c.maximum === "number") max = Math.min(max, c.maximum);
    else throw new Unsupported();
  }
  return (input) => (typeof input === "string" && input.length >= min && input.length <= max ? input : NO);
}

function compileNumber(def: ZodDefLike): Check {
  if (def.coerce) throw new Unsupported();
  let integer = false;
  let lo = Number.NEGATIVE_INFINITY;
  let loInclusive = true;
  let hi = Number.POSITIVE_INFINITY;
  let hiInclusive = true;
  for (const c of checkDefs(def)) {
    if (c.check === "number_format" && c.format === "safeint") integer = true;
    else if (c.check === "greater_than" && typeof c.value === "number") {
      lo = c.value;
      loInclusive = c.inclusive === true;
    } else if (c.check === "less_than" && typeof c.value === "number") {
      hi = c.value;
      hiInclusive = c.inclusive === true;
    } else throw new Unsupported();
  }
  return (input) => {
    if (typeof input !== "number" || !Number.isFinite(input)) return NO;
    if (integer && !Number.isSafeInteger(input)) return NO;
    if (loInclusive ? input < lo : input <= lo) return NO;
    if (hiInclusive ? input > hi : input >= hi) return NO;
    return input;
  };
}

function compileEnum(def: ZodDefLike): Check {
  if (checkDefs(def).length) throw new Unsupported();
  const values = new Set(Object.values(def.entries ?? {}));
  return (input) => (values.has(input) ? input : NO);
}

function compileArray(def: ZodDefLike): Check {
  if (checkDefs(def).length || !def.element) throw new Unsupported();
  const element = compile(defOf(def.element));
  return (input) => {
    if (!Array.isArray(input)) return NO;
    const out = new Array(input.length);
    for (let i = 0; i < input.length; i++) {
      const v = element(input[i]);
      if (v === NO) return NO;
      out[i] = v;
    }
    return out;
  };
}

interface Field {
  key: string;
  check: Check;
  optional: boolean;
}

function compileObject(def: ZodDefLike): Check {
  // strict objects only: an unknown key is an error zod must word
  if (def.catchall?._zod.def.type !== "never" || !def.shape) throw new Unsupported();
  const fields: Field[] = [];
  const keys = new Set<string>();
  for (const [key, schema] of Object.entries(def.shape)) {
    if (key === "__proto__" || key in Object.prototype) throw new Unsupported();
    const inner = schema._zod.def;
    const optional = inner.type === "optional";
    if (optional && (schema._zod.optin !== "optional" || schema._zod.optout !== "optional"))
      throw new Unsupported();
    const checked = optional ? defOf(inner.innerType) : inner;
    if (optional && checkDefs(inner).length) throw new Unsupported();
    fields.push({ key, check: compile(checked), optional });
    keys.add(key);
  }
  const refinements: Array<(value: unknown) => unknown> = [];
  for (const c of checkDefs(def)) {
    if (c.check === "custom" && typeof c.fn === "function" && c.abort === undefined) {
      refinements.push(c.fn as (value: unknown) => unknown);
    } else throw new Unsupported();
  }
  return (input) => {
    if (typeof input !== "object" || input === null) return NO;
    const proto = Object.getPrototypeOf(input);
    if (proto !== Object.prototype && proto !== null) return NO;
    const obj = input as Record<string, unknown>;
    for (const key in obj) if (!keys.has(key)) return NO;
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      const present = f.key in obj;
      const v = obj[f.key];
      if (f.optional) {
        if (!present) continue;
        if (v === undefined) {
          out[f.key] = undefined;
          continue;
        }
      } else if (!present) return NO;
      const parsed = f.check(v);
      if (parsed === NO) return NO;
      out[f.key] = parsed;
    }
    // a refinement that does not answer a plain `true` is left to zod
    for (const fn of refinements) if (fn(out) !== true) return NO;
    return out;
  };
}

function compile(def: ZodDefLike): Check {
  switch (def.type) {
    case "string":
      return compileString(def);
    case "number":
      return compileNumber(def);
    case "enum":
      return compileEnum(def);
    case "array":
      return compileArray(def);
    case "object":
      return compileObject(def);
    default:
      throw new Unsupported();
  }
}

const CACHE = new WeakMap<object, FastCheck | null>();

/** The fast check of a schema (compiled once), or `null` when the schema uses what it does not model. */
export function fastCheckOf(schema: z.ZodType): FastCheck | null {
  let fast = CACHE.get(schema);
  if (fast === undefined) {
    try {
      const check = compile(defOf(schema));
      fast = (input) => {
        const value = check(input);
        return value === NO ? undefined : { value };
      };
    } catch (err) {
      if (!(err instanceof Unsupported)) throw err;
      fast = null;
    }
    CACHE.set(schema, fast);
  }
  return fast;
}
