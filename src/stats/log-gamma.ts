import { requireFinite } from "./argument-guards.ts";

// Lanczos approximation with g = 7 and nine coefficients (Paul Godfrey's set, as published in the
// Wikipedia "Lanczos approximation" article); about 15 significant digits for x >= 0.5.
const LANCZOS_G = 7;
const LANCZOS = [
  0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406,
  12.507343278686905, -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7,
];
const HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);

/**
 * Natural log of the gamma function, ln Γ(x), for x > 0. For x < 0.5 the reflection formula
 * Γ(x)Γ(1 - x) = π / sin(πx) keeps the Lanczos series in its accurate range. ln Γ(n + 1) = ln n!.
 * Throws a RangeError for x <= 0 or non-finite x.
 */
export function logGamma(x: number): number {
  requireFinite("x", x);
  if (x <= 0) throw new RangeError(`logGamma needs x > 0, got ${x}`);
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const y = x - 1;
  let series = LANCZOS[0];
  for (let i = 1; i < LANCZOS.length; i++) series += LANCZOS[i] / (y + i);
  const t = y + LANCZOS_G + 0.5;
  return HALF_LOG_TWO_PI + (y + 0.5) * Math.log(t) - t + Math.log(series);
}
