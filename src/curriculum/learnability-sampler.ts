import { configError } from "../core/errors.ts";
import { BaseSampler, type BaseSamplerOptions } from "./base-sampler.ts";

export interface LearnabilityOptions extends BaseSamplerOptions {
  /** Pass rate assumed for a key with no result yet (default 0.5, so its learnability is the maximum 0.25). */
  prior?: number;
  /** Size of the top-learnability buffer (default 8). */
  topK?: number;
  /** Share of draws that are uniform over all eligible keys (default 0.1). */
  uniformMix?: number;
  /** Failures in a row (all its recent results) after which a key is left out of the rehearsal share (default 4). */
  hopelessAfter?: number;
}

/**
 * Learnability, Sampling For Learnability (Rutherford et al. 2024, "No Regrets: Investigating and
 * Improving Regret Approximations for Curriculum Discovery"; after Tzannetos et al. 2023): for a
 * success/failure task, L = p(1 − p), p the key's mean score over its last `window` (32) results (the
 * prior for an unseen key).
 * The k eligible keys of highest L > 0 (ties: key order) form a buffer; P(i) = (1 − ε)·L_i/ΣL_buffer
 * ·[i ∈ buffer] + ε/n over the n eligible keys; when no key has L > 0, the (1 − ε) share is uniform
 * over the keys not failed in all of their last `hopelessAfter` (4) or more results (rehearsal, not
 * what the agent has never passed). Defaults: prior 0.5,
 * k = 8, ε = 0.1. A key the agent always passes or always fails has L = 0: there is nothing to learn
 * from it, and it gets only the uniform share.
 */
export class LearnabilitySampler extends BaseSampler {
  readonly strategy: string = "learnability";
  readonly prior: number;
  readonly topK: number;
  readonly uniformMix: number;
  readonly hopelessAfter: number;

  constructor(opts: LearnabilityOptions) {
    // a longer memory than the other strategies: over 10 results a key passed half the time reads as
    // never passed about once in 500 windows, and a key at L = 0 is left to the uniform share
    super({ ...opts, window: opts.window ?? 32 });
    this.prior = opts.prior ?? 0.5;
    this.topK = opts.topK ?? 8;
    this.uniformMix = opts.uniformMix ?? 0.1;
    this.hopelessAfter = opts.hopelessAfter ?? 4;
    if (!(this.topK >= 1)) throw configError("bad_sampler_option", "topK must be >= 1");
    if (!(this.uniformMix >= 0 && this.uniformMix <= 1))
      throw configError("bad_sampler_option", "uniformMix must be in [0, 1]");
  }

  learnability(i: number): number {
    const p = this.book.mean(i, this.prior);
    return p * (1 - p);
  }

  /** The eligible keys, those with L > 0 among them, and every key's L (0 when not eligible). */
  protected scored(mask: Uint8Array): { eligible: number[]; learnable: number[]; l: Float64Array } {
    const eligible: number[] = [];
    const learnable: number[] = [];
    const l = new Float64Array(mask.length);
    for (let i = 0; i < mask.length; i++) {
      if (!mask[i]) continue;
      eligible.push(i);
      l[i] = this.learnability(i);
      if (l[i] > 0) learnable.push(i);
    }
    return { eligible, learnable, l };
  }

  protected weights(mask: Uint8Array): Float64Array {
    const { eligible, learnable, l } = this.scored(mask);
    const n = eligible.length;
    const w = new Float64Array(mask.length);
    if (n === 0) return w;
    const eps = this.uniformMix;
    for (const i of eligible) w[i] = eps / n;
    // the buffer holds only keys with something to learn (L > 0): a key always or never passed is not
    // in it, however few keys are eligible
    const top = topIndices(learnable, l, Math.min(this.topK, learnable.length));
    let total = 0;
    for (const i of top) total += l[i];
    if (total > 0) {
      for (const i of top) w[i] += ((1 - eps) * l[i]) / total;
      return w;
    }
    // nothing learnable: rehearse, but not what the agent has never passed in `hopelessAfter` tries
    // (uniform over the other keys; all eligible keys when every one is hopeless)
    const able = eligible.filter(
      (i) => this.book.recent[i].length < this.hopelessAfter || this.book.mean(i, this.prior) > 0,
    );
    const pool = able.length ? able : eligible;
    for (const i of pool) w[i] += (1 - eps) / pool.length;
    return w;
  }
}

/** The `k` indices of highest score (ties: lower index first). */
export function topIndices(indices: readonly number[], score: ArrayLike<number>, k: number): number[] {
  if (k >= indices.length) return indices.slice();
  // partial selection: keep a sorted buffer of size k (k is small next to the key space)
  const buf: number[] = [];
  const better = (a: number, b: number) => score[a] > score[b] || (score[a] === score[b] && a < b);
  for (const i of indices) {
    if (buf.length < k) {
      buf.push(i);
      buf.sort((a, b) => (better(a, b) ? -1 : 1));
    } else if (better(i, buf[k - 1])) {
      let j = k - 1;
      while (j > 0 && better(i, buf[j - 1])) {
        buf[j] = buf[j - 1];
        j--;
      }
      buf[j] = i;
    }
  }
  return buf;
}
