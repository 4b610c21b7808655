import { requireCount } from "./argument-guards.ts";
import type { IntervalEstimate } from "./interval-estimate.ts";
import { twoSidedZ } from "./normal-quantile.ts";

/**
 * Wilson score interval for a binomial proportion (Wilson 1927; Newcombe 1998, "Two-sided confidence
 * intervals for the single proportion", Stat Med 17:857–872, method 3). With p̂ = successes / n and
 * z the two-sided normal critical value for `confidence`:
 *
 *   centre    = (p̂ + z²/(2n)) / (1 + z²/n)
 *   halfWidth = z / (1 + z²/n) · sqrt(p̂(1 − p̂)/n + z²/(4n²))
 *
 * The interval stays inside [0, 1] and never collapses to a point at 0 or n successes (the limit is
 * exactly 0 for 0 successes and exactly 1 for n successes). `estimate` is p̂. With n = 0 there is no
 * information: estimate 0, interval [0, 1]. Throws a RangeError for non-integer or negative counts,
 * successes > n, or a confidence outside (0, 1).
 *
 * @example
 * ```ts
 * wilson(8, 10); // { estimate: 0.8, lo: 0.49…, hi: 0.94… }
 * ```
 */
export function wilson(successes: number, n: number, confidence = 0.95): IntervalEstimate {
  requireCount("successes", successes);
  requireCount("n", n);
  if (successes > n) throw new RangeError(`successes (${successes}) must not exceed n (${n})`);
  const z = twoSidedZ(confidence);
  if (n === 0) return { estimate: 0, lo: 0, hi: 1 };
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const halfWidth = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return {
    estimate: p,
    lo: successes === 0 ? 0 : Math.max(0, centre - halfWidth),
    hi: successes === n ? 1 : Math.min(1, centre + halfWidth),
  };
}
