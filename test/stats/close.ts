import assert from "node:assert/strict";

/** Asserts |actual − expected| <= tolerance (absolute), with a readable message. */
export function assertClose(actual: number, expected: number, tolerance: number, label = ""): void {
  assert.ok(
    Math.abs(actual - expected) <= tolerance,
    `${label ? `${label}: ` : ""}expected ${expected} ± ${tolerance}, got ${actual}`,
  );
}

/** Asserts |actual − expected| <= tolerance · |expected| (relative). */
export function assertRelClose(actual: number, expected: number, tolerance: number, label = ""): void {
  assert.ok(
    Math.abs(actual - expected) <= tolerance * Math.abs(expected),
    `${label ? `${label}: ` : ""}expected ${expected} (relative ± ${tolerance}), got ${actual}`,
  );
}
