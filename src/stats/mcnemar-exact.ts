import { requireCount } from "./argument-guards.ts";
import { binomialCdf } from "./binomial-cdf.ts";

/**
 * Exact (conditional) McNemar test for paired binary outcomes. b and c are the two discordant counts
 * (pairs where only A passed, pairs where only B passed). Under H0 (equal pass rates), given b + c
 * discordant pairs, b ~ Bin(b + c, 1/2), so the two-sided p-value is
 *
 *   p = min(1, 2 · P(X <= min(b, c))),  X ~ Bin(b + c, 1/2)
 *
 * With b + c = 0 there is no evidence either way: p = 1. Throws a RangeError for non-integer or
 * negative counts.
 */
export function mcnemarExact(b: number, c: number): number {
  requireCount("b", b);
  requireCount("c", c);
  const discordant = b + c;
  if (discordant === 0) return 1;
  return Math.min(1, 2 * binomialCdf(Math.min(b, c), discordant, 0.5));
}
