import { configError } from "../core/errors.ts";
import { BaseSampler, type BaseSamplerOptions } from "./base-sampler.ts";

export interface TargetBandOptions extends BaseSamplerOptions {
  /** The pass-rate band to keep the agent in (default [0.4, 0.6]). */
  band?: [number, number];
  /** Beta prior (a, b) on each key's pass rate (default [1, 1]: an unseen key is at 0.5, in the band). */
  prior?: [number, number];
  /** Decay length outside the band (default 0.1). */
  temperature?: number;
}

/**
 * Target band ("goals of intermediate difficulty", Florensa et al. 2018, GoalGAN: train on goals whose
 * success rate lies in [R_min, R_max]). Each key's pass rate is the Beta posterior mean of its recent
 * scores, p̂ = (Σx + a)/(n + a + b); its weight is 1 inside [lo, hi] and exp(−d/τ) outside, d the distance
 * to the band. Defaults: band [0.4, 0.6], prior (1, 1), τ = 0.1. E.g. p̂ = 0.8 → w = e^−2 ≈ 0.135.
 */
export class TargetBandSampler extends BaseSampler {
  readonly strategy = "target-band";
  readonly band: [number, number];
  readonly prior: [number, number];
  readonly temperature: number;

  constructor(opts: TargetBandOptions) {
    super(opts);
    this.band = opts.band ?? [0.4, 0.6];
    this.prior = opts.prior ?? [1, 1];
    this.temperature = opts.temperature ?? 0.1;
    const [lo, hi] = this.band;
    if (!(lo >= 0 && hi <= 1 && lo <= hi))
      throw configError("bad_sampler_option", `band must be 0 <= lo <= hi <= 1, got [${lo}, ${hi}]`);
    if (!(this.temperature > 0)) throw configError("bad_sampler_option", "temperature must be > 0");
  }

  /** Distance-to-band weight of a pass-rate estimate. */
  bandWeight(p: number): number {
    const [lo, hi] = this.band;
    const d = p < lo ? lo - p : p > hi ? p - hi : 0;
    return Math.exp(-d / this.temperature);
  }

  protected weights(mask: Uint8Array): Float64Array {
    const w = new Float64Array(mask.length);
    const [a, b] = this.prior;
    for (let i = 0; i < mask.length; i++) if (mask[i]) w[i] = this.bandWeight(this.book.posterior(i, a, b));
    return w;
  }
}
