import { cloneJson } from "../core/json.ts";

/** Freezes a value and everything reachable from it (plain data). Returns the same value. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

/** A deep-frozen copy: what rules receive, so a rule that tries to mutate its input throws. */
export function frozenCopy<T>(value: T): T {
  return deepFreeze(cloneJson(value));
}
