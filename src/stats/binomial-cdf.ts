import { requireCount, requireProbability } from "./argument-guards.ts";
import { logChoose } from "./binomial-coefficient.ts";

/** P(X = x) for X ~ Bin(n, p) with 0 < p < 1, through logs so it neither overflows nor underflows early. */
function pmf(x: number, n: number, p: number): number {
  return Math.exp(logChoose(n, x) + x * Math.log(p) + (n - x) * Math.log1p(-p));
}

/**
 * P(X <= x) for X ~ Bin(n, p). One probability mass is computed through log-gamma; the others follow
 * from the exact ratios of neighbouring masses, summed from the side of the distribution where they
 * shrink (below the mode for the lower tail, above it for the upper tail), so the sum stays accurate
 * far into the tails and costs O(x) or O(n - x) steps. x outside [0, n] gives 0 or 1.
 */
export function binomialCdf(x: number, n: number, p: number): number {
  requireCount("n", n);
  requireProbability("p", p);
  if (typeof x !== "number" || Number.isNaN(x)) throw new RangeError(`x must be a number, got ${String(x)}`);
  const k = Math.floor(x);
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (p === 0) return 1;
  if (p === 1) return 0;
  const odds = p / (1 - p);
  if (k < (n + 1) * p) {
    // Lower tail: pmf(i - 1) / pmf(i) = i / ((n - i + 1) * odds) < 1 for i <= k < (n + 1) p.
    let term = 1;
    let sum = 1;
    for (let i = k; i > 0; i--) {
      term *= i / ((n - i + 1) * odds);
      sum += term;
      if (term < sum * 1e-17) break;
    }
    return Math.min(1, pmf(k, n, p) * sum);
  }
  // Upper tail from k + 1: pmf(i + 1) / pmf(i) = (n - i) * odds / (i + 1) < 1 for i > (n + 1) p - 1.
  const start = k + 1;
  let term = 1;
  let sum = 1;
  for (let i = start; i < n; i++) {
    term *= ((n - i) * odds) / (i + 1);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return Math.max(0, 1 - pmf(start, n, p) * sum);
}
