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
    return { ok: true, value: copy(value, "", 0, new Set(), { left: MAX_ACTION_CHARS }) };
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

/** What is left of an action's character budget. */
interface Budget {
  left: number;
}

function spend(budget: Budget, chars: number): void {
  budget.left -= chars;
  if (budget.left < 0) throw new NotJson(`the action is larger than ${MAX_ACTION_CHARS} characters of JSON`);
}

function copy(value: unknown, at: string, depth: number, path: Set<object>, budget: Budget): JsonValue {
  switch (typeof value) {
    case "string":
      spend(budget, value.length);
      return value;
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) throw new NotJson(`${at || "the value"} is ${value}, not a JSON number`);
      return value;
    case "object":
      break;
    default:
      throw new NotJson(`${at || "the value"} is a ${typeof value}, not JSON`);
  }
  if (value === null) return null;
  if (depth >= MAX_DEPTH) throw new NotJson(`${at} is nested deeper than ${MAX_DEPTH} levels`);
  if (path.has(value)) throw new NotJson(`${at || "the value"} contains itself (a cycle)`);
  path.add(value);
  try {
    if (Array.isArray(value)) {
      const length = value.length;
      if (length > MAX_ENTRIES) throw new NotJson(`${at} has more than ${MAX_ENTRIES} items`);
      const out: JsonValue[] = new Array(length);
      for (let i = 0; i < length; i++) {
        const raw = dataProperty(value, String(i), at);
        out[i] = raw === undefined ? null : copy(raw, `${at}[${i}]`, depth + 1, path, budget);
      }
      return out;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null)
      throw new NotJson(
        `${at || "the value"} is a ${proto?.constructor?.name ?? "non-plain"} object, not plain JSON`,
      );
    const keys = Object.keys(value);
    if (keys.length > MAX_ENTRIES) throw new NotJson(`${at} has more than ${MAX_ENTRIES} keys`);
    const out: { [key: string]: JsonValue } = {};
    for (const key of keys) {
      const raw = dataProperty(value, key, at);
      if (raw === undefined) continue; // as JSON does: an undefined property is absent
      spend(budget, key.length);
      const item = copy(raw, at ? `${at}.${key}` : key, depth + 1, path, budget);
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
  } finally {
    path.delete(value);
  }
}

function dataProperty(owner: object, key: string, at: string): unknown {
  const d = Object.getOwnPropertyDescriptor(owner, key);
  if (d === undefined) return null; // a hole in an array: JSON has null there
  if (!("value" in d)) throw new NotJson(`${at ? `${at}.` : ""}${key} is a getter, not a value`);
  return d.value;
}
