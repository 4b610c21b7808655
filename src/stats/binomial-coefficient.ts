import { requireCount } from "./argument-guards.ts";
import { logGamma } from "./log-gamma.ts";

function requireChoose(n: number, k: number): void {
  requireCount("n", n);
  requireCount("k", k);
}

/**
 * The binomial coefficient C(n, k) as a float, by the multiplicative form
 * C(n, k) = prod_{i=1..k} (n - k + i) / i with k = min(k, n - k). Each partial product is itself an
 * integer C(n - k + i, i), so the result is exact while it stays below 2^53. C(n, k) = 0 for k > n.
 */
export function choose(n: number, k: number): number {
  requireChoose(n, k);
  if (k > n) return 0;
  const m = Math.min(k, n - k);
  let result = 1;
  for (let i = 1; i <= m; i++) result = (result * (n - m + i)) / i;
  return result;
}

/** ln C(n, k) = ln Γ(n + 1) - ln Γ(k + 1) - ln Γ(n - k + 1); -Infinity when k > n. */
export function logChoose(n: number, k: number): number {
  requireChoose(n, k);
  if (k > n) return Number.NEGATIVE_INFINITY;
  if (k === 0 || k === n) return 0;
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

/**
 * The ratio C(a, k) / C(b, k) for 0 <= a <= b, without forming either coefficient:
 * C(a, k) / C(b, k) = prod_{i=0..k-1} (a - i) / (b - i). Every factor lies in [0, 1], so the product
 * never overflows and loses no precision to cancellation. It is 0 when k > a. Throws a RangeError
 * when a > b or k > b (C(b, k) would be 0).
 */
export function chooseRatio(a: number, b: number, k: number): number {
  requireCount("a", a);
  requireCount("b", b);
  requireCount("k", k);
  if (a > b) throw new RangeError(`chooseRatio needs a <= b, got a=${a}, b=${b}`);
  if (k > b) throw new RangeError(`chooseRatio needs k <= b, got k=${k}, b=${b}`);
  if (k > a) return 0;
  let ratio = 1;
  for (let i = 0; i < k; i++) ratio *= (a - i) / (b - i);
  return ratio;
}
