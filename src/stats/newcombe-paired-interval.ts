import { requireCount } from "./argument-guards.ts";
import type { IntervalEstimate } from "./interval-estimate.ts";
import { wilson } from "./wilson.ts";

/** The 2×2 table of paired binary outcomes (A on one axis, B on the other). */
export interface PairedTable {
  both_pass: number;
  a_only: number;
  b_only: number;
  neither: number;
}

/**
 * Confidence interval for the difference of paired proportions θ = P(A passes) − P(B passes), by
 * Newcombe's hybrid score method 10 (Newcombe 1998, "Improved confidence intervals for the difference
 * between binomial proportions based on paired data", Stat Med 17:2635–2650). With e, f, g, h =
 * both_pass, a_only, b_only, neither and n = e + f + g + h:
 *
 *   p1 = (e + f)/n with Wilson interval [l1, u1];  p2 = (e + g)/n with Wilson interval [l2, u2]
 *   φ  = C / sqrt((e+f)(g+h)(e+g)(f+h)), where D = eh − fg and C = D − n/2 if D > n/2, 0 if
 *        0 <= D <= n/2, D if D < 0 (continuity-corrected correlation); φ = 0 if a margin is 0
 *   lo = θ − sqrt((p1 − l1)² − 2φ(p1 − l1)(u2 − p2) + (u2 − p2)²)
 *   hi = θ + sqrt((u1 − p1)² − 2φ(u1 − p1)(p2 − l2) + (p2 − l2)²)
 *
 * Unlike the Wald or bootstrap intervals it does not collapse to a point when there are no
 * discordant pairs. Throws a RangeError for bad counts or an empty table.
 */
export function newcombePairedInterval(table: PairedTable, confidence = 0.95): IntervalEstimate {
  const e = requireCount("both_pass", table.both_pass);
  const f = requireCount("a_only", table.a_only);
  const g = requireCount("b_only", table.b_only);
  const h = requireCount("neither", table.neither);
  const n = e + f + g + h;
  if (n === 0) throw new RangeError("newcombePairedInterval needs at least one pair");
  const p1 = (e + f) / n;
  const p2 = (e + g) / n;
  const w1 = wilson(e + f, n, confidence);
  const w2 = wilson(e + g, n, confidence);
  const marginProduct = (e + f) * (g + h) * (e + g) * (f + h);
  let phi = 0;
  if (marginProduct > 0) {
    const d = e * h - f * g;
    const corrected = d > n / 2 ? d - n / 2 : Math.min(d, 0);
    phi = corrected / Math.sqrt(marginProduct);
  }
  const theta = (f - g) / n;
  const down1 = p1 - w1.lo;
  const up1 = w1.hi - p1;
  const down2 = p2 - w2.lo;
  const up2 = w2.hi - p2;
  const lo = theta - Math.sqrt(Math.max(0, down1 * down1 - 2 * phi * down1 * up2 + up2 * up2));
  const hi = theta + Math.sqrt(Math.max(0, up1 * up1 - 2 * phi * up1 * down2 + down2 * down2));
  return { estimate: theta, lo: Math.max(-1, lo), hi: Math.min(1, hi) };
}
