import { requireOpenUnit, requireProbability } from "./argument-guards.ts";
import { normalQuantile } from "./normal-quantile.ts";

export interface SampleSizeForDifferenceOptions {
  /** Pass rate expected under condition A. */
  p1: number;
  /** Pass rate expected under condition B. */
  p2: number;
  /** Two-sided significance level (default 0.05). */
  alpha?: number;
  /** Probability of detecting the difference p1 − p2 if it is real (default 0.8). */
  power?: number;
  /** true when both conditions run on the same units (tasks × seeds) and are compared pairwise. */
  paired?: boolean;
  /**
   * Paired designs only, required: ψ, the probability that a pair is discordant (exactly one of A, B
   * passes), = P(A only) + P(B only). Must satisfy |p1 − p2| <= ψ <= min(p1 + p2, 2 − p1 − p2).
   */
  discordant?: number;
  /** Unpaired only: apply the Fleiss–Tytun–Ury continuity correction (default false). */
  continuityCorrection?: boolean;
}

/**
 * Trials needed per condition to detect p1 ≠ p2 with a two-sided test at level alpha with the given
 * power, rounded up. With z_a = Φ⁻¹(1 − alpha/2), z_b = Φ⁻¹(power) and δ = p1 − p2:
 *
 * Unpaired (two independent arms; the normal-approximation test of two proportions with the pooled
 * variance under H0, e.g. Fleiss, Levin & Paik 2003, "Statistical Methods for Rates and Proportions",
 * §4.2), with p̄ = (p1 + p2)/2:
 *
 *   n = ( z_a·sqrt(2·p̄(1 − p̄)) + z_b·sqrt(p1(1 − p1) + p2(1 − p2)) )² / δ²        per arm
 *
 *   continuity-corrected (Fleiss, Tytun & Ury 1980): n' = n/4 · (1 + sqrt(1 + 4/(n·|δ|)))²
 *
 * Paired (McNemar test; Connor 1987, "Sample size for testing differences in proportions for the
 * paired-sample design", Biometrics 43:207–211), with ψ = `discordant`:
 *
 *   n = ( z_a·sqrt(ψ) + z_b·sqrt(ψ − δ²) )² / δ²        pairs (each condition runs n trials)
 *
 * Throws a RangeError when p1 = p2, for probabilities outside [0, 1], alpha or power outside (0, 1),
 * or a missing or impossible `discordant` in a paired design.
 */
export function sampleSizeForDifference(options: SampleSizeForDifferenceOptions): number {
  const { p1, p2 } = options;
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.8;
  requireProbability("p1", p1);
  requireProbability("p2", p2);
  requireOpenUnit("alpha", alpha);
  requireOpenUnit("power", power);
  const delta = p1 - p2;
  if (delta === 0) throw new RangeError("p1 and p2 are equal: no sample size detects a zero difference");
  const zA = -normalQuantile(alpha / 2);
  const zB = normalQuantile(power);
  let n: number;
  if (options.paired) {
    const psi = options.discordant;
    if (psi === undefined) {
      throw new RangeError("a paired design needs `discordant`: P(A only) + P(B only)");
    }
    requireProbability("discordant", psi);
    const max = Math.min(p1 + p2, 2 - p1 - p2);
    // The 1e-12 slack absorbs float noise in p1 − p2 (0.8 − 0.7 = 0.10000000000000009).
    if (psi < Math.abs(delta) - 1e-12 || psi > max + 1e-12) {
      throw new RangeError(
        `discordant must lie in [|p1 - p2|, min(p1 + p2, 2 - p1 - p2)] = [${Math.abs(delta)}, ${max}], got ${psi}`,
      );
    }
    n = (zA * Math.sqrt(psi) + zB * Math.sqrt(Math.max(0, psi - delta * delta))) ** 2 / (delta * delta);
  } else {
    const pBar = (p1 + p2) / 2;
    n =
      (zA * Math.sqrt(2 * pBar * (1 - pBar)) + zB * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) ** 2 /
      (delta * delta);
    if (options.continuityCorrection) n = (n / 4) * (1 + Math.sqrt(1 + 4 / (n * Math.abs(delta)))) ** 2;
  }
  // The tolerance keeps float noise (e.g. 100.00000000001) from adding a whole trial.
  return Math.max(1, Math.ceil(n - 1e-9));
}
