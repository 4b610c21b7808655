import { configError } from "../core/errors.ts";
import { BaseSampler, type BaseSamplerOptions } from "./base-sampler.ts";
import type { EpisodeResult } from "./sampler.ts";

export interface LearningProgressOptions extends BaseSamplerOptions {
  /** Rate of the fast moving average (default 0.25). */
  fast?: number;
  /** Rate of the slow moving average (default 0.05). */
  slow?: number;
  /** Reweighting threshold p_θ (default 0.1): r(p_θ) = 0.5, so low pass rates are magnified. */
  reweight?: number;
  /** Share of draws uniform over the eligible keys (default 0.2). */
  uniformMix?: number;
}

/**
 * Learning progress (Kanitscheider et al. 2021, "Multi-task curriculum learning in a complex, visual,
 * hard-exploration domain: Minecraft"; after Portelas et al. 2019, ALP-GMM). Per key, a fast and a slow
 * exponential moving average of the score, f ← f + α_f(x − f), s ← s + α_s(x − s), both starting at the
 * key's first score. Reweighting r(p) = (1 − θ)p / (p + θ(1 − 2p)) focuses on low pass rates; learning
 * progress LP = |r(f) − r(s)| (forgetting counts as much as learning). P(i) = (1 − ε)·LP_i/Σ LP + ε/n
 * (uniform when every LP is 0). The paper samples by a sigmoid of the z-scored LP; this is the simpler
 * proportional form. Defaults α_f = 0.25, α_s = 0.05, θ = 0.1, ε = 0.2 (ours).
 */
export class LearningProgressSampler extends BaseSampler {
  readonly strategy = "learning-progress";
  readonly fastRate: number;
  readonly slowRate: number;
  readonly theta: number;
  readonly uniformMix: number;
  #fast: (number | null)[];
  #slow: (number | null)[];

  constructor(opts: LearningProgressOptions) {
    super(opts);
    this.fastRate = opts.fast ?? 0.25;
    this.slowRate = opts.slow ?? 0.05;
    this.theta = opts.reweight ?? 0.1;
    this.uniformMix = opts.uniformMix ?? 0.2;
    if (!(this.fastRate > 0 && this.fastRate <= 1 && this.slowRate > 0 && this.slowRate < this.fastRate)) {
      throw configError("bad_sampler_option", "want 0 < slow < fast <= 1");
    }
    if (!(this.theta > 0 && this.theta < 1))
      throw configError("bad_sampler_option", "reweight must be in (0, 1)");
    this.#fast = new Array(this.book.size).fill(null);
    this.#slow = new Array(this.book.size).fill(null);
  }

  reweighted(p: number): number {
    const t = this.theta;
    return ((1 - t) * p) / (p + t * (1 - 2 * p));
  }

  /** LP of key `i` (0 before its first result). */
  progress(i: number): number {
    const f = this.#fast[i];
    const s = this.#slow[i];
    if (f === null || s === null) return 0;
    return Math.abs(this.reweighted(f) - this.reweighted(s));
  }

  protected override onResult(i: number, _r: EpisodeResult, score: number): void {
    const f = this.#fast[i];
    const s = this.#slow[i];
    this.#fast[i] = f === null ? score : f + this.fastRate * (score - f);
    this.#slow[i] = s === null ? score : s + this.slowRate * (score - s);
  }

  protected weights(mask: Uint8Array): Float64Array {
    let n = 0;
    let total = 0;
    const lp = new Float64Array(mask.length);
    for (let i = 0; i < mask.length; i++) {
      if (!mask[i]) continue;
      n++;
      lp[i] = this.progress(i);
      total += lp[i];
    }
    const w = new Float64Array(mask.length);
    const eps = total > 0 ? this.uniformMix : 1;
    for (let i = 0; i < mask.length; i++) {
      if (!mask[i]) continue;
      w[i] = (total > 0 ? (1 - eps) * (lp[i] / total) : 0) + eps / n;
    }
    return w;
  }

  protected override saveExtra(): unknown {
    return { fast: this.#fast.slice(), slow: this.#slow.slice() };
  }

  protected override loadExtra(state: unknown): void {
    const s = state as { fast?: unknown; slow?: unknown } | null;
    if (
      !s ||
      !Array.isArray(s.fast) ||
      !Array.isArray(s.slow) ||
      s.fast.length !== this.book.size ||
      s.slow.length !== this.book.size
    ) {
      throw configError("bad_sampler_snapshot", "learning-progress snapshot does not fit this key space");
    }
    this.#fast = (s.fast as (number | null)[]).slice();
    this.#slow = (s.slow as (number | null)[]).slice();
  }
}
