import { configError } from "../core/errors.ts";
import { BaseSampler, type BaseSamplerOptions } from "./base-sampler.ts";

export interface LearnabilityOptions extends BaseSamplerOptions {
  /** Pass rate assumed for a key with no result yet (default 0.5, so its learnability is the maximum 0.25). */
  prior?: number;
  /** Size of the top-learnability buffer (default 8). */
  topK?: number;
  /** Share of draws that are uniform over all eligible keys (default 0.2). */
  uniformMix?: number;
}

/**
 * Learnability, Sampling For Learnability (Rutherford et al. 2024, "No Regrets: Investigating and
 * Improving Regret Approximations for Curriculum Discovery"; after Tzannetos et al. 2023): for a
 * success/failure task, L = p(1 − p), p the key's mean recent score (the prior for an unseen key).
 * The k keys of highest L (ties: key order) form a buffer; P(i) = (1 − ε)·[i ∈ top-k]/k + ε/n over the
 * n eligible keys. Defaults: prior 0.5, k = 8, ε = 0.2. A key the agent always passes or always fails
 * has L = 0: there is nothing to learn from it.
 */
export class LearnabilitySampler extends BaseSampler {
  readonly strategy = "learnability";
  readonly prior: number;
  readonly topK: number;
  readonly uniformMix: number;

  constructor(opts: LearnabilityOptions) {
    super(opts);
    this.prior = opts.prior ?? 0.5;
    this.topK = opts.topK ?? 8;
    this.uniformMix = opts.uniformMix ?? 0.2;
    if (!(this.topK >= 1)) throw configError("bad_sampler_option", "topK must be >= 1");
    if (!(this.uniformMix >= 0 && this.uniformMix <= 1))
      throw configError("bad_sampler_option", "uniformMix must be in [0, 1]");
  }

  learnability(i: number): number {
    const p = this.book.mean(i, this.prior);
    return p * (1 - p);
  }

  protected weights(mask: Uint8Array): Float64Array {
    const eligible: number[] = [];
    for (let i = 0; i < mask.length; i++) if (mask[i]) eligible.push(i);
    const n = eligible.length;
    const w = new Float64Array(mask.length);
    if (n === 0) return w;
    const l = new Float64Array(mask.length);
    for (const i of eligible) l[i] = this.learnability(i);
    const top = topIndices(eligible, l, Math.min(this.topK, n));
    const eps = this.uniformMix;
    for (const i of eligible) w[i] = eps / n;
    for (const i of top) w[i] += (1 - eps) / top.length;
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
