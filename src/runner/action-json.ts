import type { JsonValue } from "../core/json.ts";

/** Nesting past this is not an action anyone meant to send. */
const MAX_DEPTH = 64;
/** Keys and items past this are not either (a runaway array, a sparse array with a huge length). */
const MAX_ENTRIES = 100_000;
/** Characters of strings and keys in one action past this (1 Mi): no tool call needs it, a store keeps it. */
export const MAX_ACTION_CHARS = 1 << 20;

/**
 * A copy of what an agent returned, as plain JSON data, or a `string` saying why it is not: only
 * `null`, booleans, finite numbers, strings, arrays and plain objects (prototype `Object.prototype`
 * or `null`) holding own enumerable data properties. Accessors (getters) are refused, not called;
 * `toJSON` is not called; a BigInt, a function, a symbol, a cycle, a class instance, `NaN`, too deep
 * or too large a value (over `MAX_ACTION_CHARS` characters of strings and keys) is refused; a Proxy whose traps throw is refused with the trap's message.
 * What comes back shares nothing with the agent's value, so the agent cannot change it afterwards.
 */
export function toActionJson(
  value: unknown,
): { ok: true; value: JsonValue } | { ok: false; problem: string } {
  try {
    return { ok: true, value: copy(value, 0, { left: MAX_ACTION_CHARS, parents: [], keys: [] }) };
  } catch (err) {
    return {
      ok: false,
      problem: err instanceof NotJson ? err.message : `reading it threw: ${describe(err)}`,
    };
  }
}

class NotJson extends Error {}

function describe(err: unknown): string {
  try {
    return err instanceof Error ? String(err.message) : String(err);
  } catch {
    return "an unprintable error";
  }
}

/**
 * The walk's state: what is left of the action's character budget, and the objects and keys on the
 * way down to the value being copied (depth `d` is reached from `parents[d - 1]` by `keys[d - 1]`).
 * The path is spelled out only for a message: a copy that succeeds builds no path strings.
 */
interface Walk {
  left: number;
  readonly parents: object[];
  readonly keys: Array<string | number>;
}

/** Where the value at `depth` is, as `a.b[2].c` ("" at the top). */
function pathOf(walk: Walk, depth: number): string {
  let at = "";
  for (let d = 0; d < depth; d++) {
    const key = walk.keys[d];
    at = typeof key === "number" ? `${at}[${key}]` : at ? `${at}.${key}` : key;
  }
  return at;
}

function spend(walk: Walk, chars: number): void {
  walk.left -= chars;
  if (walk.left < 0) throw new NotJson(`the action is larger than ${MAX_ACTION_CHARS} characters of JSON`);
}

function copy(value: unknown, depth: number, walk: Walk): JsonValue {
  switch (typeof value) {
    case "string":
      spend(walk, value.length);
      return value;
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value))
        throw new NotJson(`${pathOf(walk, depth) || "the value"} is ${value}, not a JSON number`);
      return value;
    case "object":
      break;
    default:
      throw new NotJson(`${pathOf(walk, depth) || "the value"} is a ${typeof value}, not JSON`);
  }
  if (value === null) return null;
  if (depth >= MAX_DEPTH)
    throw new NotJson(`${pathOf(walk, depth)} is nested deeper than ${MAX_DEPTH} levels`);
  const parents = walk.parents;
  for (let d = 0; d < depth; d++)
    if (parents[d] === value)
      throw new NotJson(`${pathOf(walk, depth) || "the value"} contains itself (a cycle)`);
  parents[depth] = value;
  const keys = walk.keys;
  if (Array.isArray(value)) {
    const length = value.length;
    if (length > MAX_ENTRIES) throw new NotJson(`${pathOf(walk, depth)} has more than ${MAX_ENTRIES} items`);
    const out: JsonValue[] = new Array(length);
    for (let i = 0; i < length; i++) {
      keys[depth] = i;
      const raw = dataProperty(value, String(i), walk, depth);
      out[i] = raw === undefined ? null : copy(raw, depth + 1, walk);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null)
    throw new NotJson(
      `${pathOf(walk, depth) || "the value"} is a ${proto?.constructor?.name ?? "non-plain"} object, not plain JSON`,
    );
  const own = Object.keys(value);
  if (own.length > MAX_ENTRIES) throw new NotJson(`${pathOf(walk, depth)} has more than ${MAX_ENTRIES} keys`);
  const out: { [key: string]: JsonValue } = {};
  for (const key of own) {
    const raw = dataProperty(value, key, walk, depth);
    if (raw === undefined) continue; // as JSON does: an undefined property is absent
    spend(walk, key.length);
    keys[depth] = key;
    const item = copy(raw, depth + 1, walk);
    // a key named `__proto__` stays a key, never a prototype (defineProperty); any other key is
    // assigned, which makes the same own enumerable, writable, configurable data property
    if (key === "__proto__")
      Object.defineProperty(out, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = item;
  }
  return out;
}

function dataProperty(owner: object, key: string, walk: Walk, depth: number): unknown {
  const d = Object.getOwnPropertyDescriptor(owner, key);
  if (d === undefined) return null; // a hole in an array: JSON has null there
  if (!("value" in d)) {
    const at = pathOf(walk, depth);
    throw new NotJson(`${at ? `${at}.` : ""}${key} is a getter, not a value`);
  }
  return d.value;
}
