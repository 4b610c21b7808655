/**
 * Argument checks shared by the statistics functions. Every bad input is a RangeError that names the
 * argument, so a report never silently prints NaN for a typo.
 */

/** A finite number (not NaN, not ±Infinity). */
export function requireFinite(name: string, value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be a finite number, got ${String(value)}`);
  }
  return value;
}

/** A non-negative safe integer: a count of trials, successes or pairs. */
export function requireCount(name: string, value: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

/** A number strictly between 0 and 1 (a confidence level, alpha, power or open probability). */
export function requireOpenUnit(name: string, value: number): number {
  if (typeof value !== "number" || !(value > 0 && value < 1)) {
    throw new RangeError(`${name} must be strictly between 0 and 1, got ${String(value)}`);
  }
  return value;
}

/** A probability in the closed interval [0, 1]. */
export function requireProbability(name: string, value: number): number {
  if (typeof value !== "number" || !(value >= 0 && value <= 1)) {
    throw new RangeError(`${name} must be a probability in [0, 1], got ${String(value)}`);
  }
  return value;
}
