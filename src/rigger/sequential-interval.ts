import { wilson } from "../stats/wilson.ts";

/** Where a pass rate stands against a target band, from its confidence interval. */
export type BandPosition = "inside" | "outside" | "undecided";

export interface BandRule {
  /** Target band [lo, hi] of the pass rate (default [0.4, 0.6]). */
  band: [number, number];
  /**
   * How far beyond the band the interval may reach and still count as inside (default 0.2): a 95%
   * interval narrows to ±0.2 only after ~24 rollouts, so "clearly inside" is judged at that resolution.
   */
  slack: number;
  confidence: number;
}

export const DEFAULT_BAND_RULE: BandRule = { band: [0.4, 0.6], slack: 0.2, confidence: 0.95 };

/**
 * The sequential judgement after `passed` of `n` rollouts (Wilson interval): `outside` once the
 * interval misses the band entirely; `inside` once the whole interval lies within the band widened by
 * `slack` (with the defaults: the 95% interval within [0.2, 0.8], which at 24 rollouts means an
 * estimate within about [0.375, 0.625]); otherwise `undecided` (sample more).
 */
export function bandPosition(
  passed: number,
  n: number,
  rule: BandRule = DEFAULT_BAND_RULE,
): { position: BandPosition; ci: [number, number]; rate: number } {
  const w = wilson(passed, n, rule.confidence);
  const [lo, hi] = rule.band;
  const ci: [number, number] = [w.lo, w.hi];
  if (n === 0) return { position: "undecided", ci, rate: 0 };
  if (w.hi < lo || w.lo > hi) return { position: "outside", ci, rate: w.estimate };
  if (w.lo >= lo - rule.slack && w.hi <= hi + rule.slack) return { position: "inside", ci, rate: w.estimate };
  return { position: "undecided", ci, rate: w.estimate };
}
