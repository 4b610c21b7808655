import { configError } from "../core/errors.ts";
import { type LearnabilityOptions, LearnabilitySampler, topIndices } from "./learnability-sampler.ts";
import type { EpisodeResult } from "./sampler.ts";

/** The learnability of a key passed half the time, p(1 − p) at p = 0.5: the most a key can have. */
const FULL_KEY = 0.25;

export interface RecoveryOptions extends LearnabilityOptions {
  /** Beta prior (a, b) on the recovery rate, the chance a stuck key is passed when tried (default [1, 199]). */
  recoveryPrior?: [number, number];
}

/** What the strategy adds to learnability's snapshot. */
interface RecoveryState {
  stuckTries: number;
  recoveries: number;
}

/**
 * Learnability (SFL, `LearnabilitySampler`) that does not give up on a key for good. A key is *stuck*
 * when it has `hopelessAfter` (4) or more recent results and failed all of them; plain learnability
 * scores it p(1 − p) = 0 forever, which is right for an agent that cannot pass it and starves an agent
 * that learns (a learner from scratch fails every key, and learns a family only by playing it). Here
 * a stuck key is scored by the agent's own record of getting unstuck: every try of a stuck key counts
 * (`stuckTries`), and a pass on one counts as a recovery; r̂ = (recoveries + a)/(stuckTries + a + b),
 * pooled over all keys, and a stuck key's learnability is r̂(1 − r̂). An agent that never recovers
 * (a fixed policy's unpassable families) drives r̂ toward 0 as it fails, so its stuck keys fade out
 * as they do under learnability; an agent that does (a learner) keeps r̂ up and its stuck keys in the
 * buffer. A stuck key's share is measured against a full key (see `weights`); everything else is
 * learnability's (top-k buffer, uniform share, rehearsal). Default prior (1, 199): r̂ starts at 0.005,
 * a stuck key at about 2% of the (1 − ε) share; with (1, 9) to (1, 49) the planted never-passing agents
 * got 21–28% of episodes 101–200 on one seed, with (1, 99) 12% to a lone never-passed family (the
 * limit is 10%; docs/curriculum.md, "The default, and why", has the measurements).
 */
export class RecoveryLearnabilitySampler extends LearnabilitySampler {
  override readonly strategy: string = "learnability-recovery";
  readonly recoveryPrior: [number, number];
  stuckTries = 0;
  recoveries = 0;

  constructor(opts: RecoveryOptions) {
    super(opts);
    this.recoveryPrior = opts.recoveryPrior ?? [1, 199];
    const [a, b] = this.recoveryPrior;
    if (!(a > 0 && b > 0)) throw configError("bad_sampler_option", "recoveryPrior must be two numbers > 0");
  }

  /** Whether key `i` failed all of its recent results, and has at least `hopelessAfter` of them. */
  stuck(i: number): boolean {
    const r = this.book.recent[i];
    return r.length >= this.hopelessAfter && r.every((x) => x === 0);
  }

  /** The pooled chance that a stuck key is passed when tried (Beta posterior mean). */
  recoveryRate(): number {
    const [a, b] = this.recoveryPrior;
    return (this.recoveries + a) / (this.stuckTries + a + b);
  }

  /** p(1 − p) as in learnability; r̂(1 − r̂) for a stuck key. */
  override learnability(i: number): number {
    if (!this.stuck(i)) return super.learnability(i);
    const r = this.recoveryRate();
    return r * (1 - r);
  }

  /**
   * Learnability's draw, with stuck keys measured against a full key: a stuck key in the buffer gets
   * (1 − ε)·L_i / max(ΣL_buffer, 0.25), so stuck keys at a small r̂ get little even alone in it; the
   * rest of the (1 − ε) share goes to the buffer's other keys by L, as in learnability, or, when it
   * has none, to rehearsal (uniform over the eligible keys not stuck; all of them when every key is).
   */
  protected override weights(mask: Uint8Array): Float64Array {
    const { eligible, learnable, l } = this.scored(mask);
    const w = new Float64Array(mask.length);
    const n = eligible.length;
    if (n === 0) return w;
    const eps = this.uniformMix;
    for (const i of eligible) w[i] = eps / n;
    const top = topIndices(learnable, l, Math.min(this.topK, learnable.length));
    let total = 0;
    let open = 0;
    for (const i of top) {
      total += l[i];
      if (!this.stuck(i)) open += l[i];
    }
    const scale = Math.max(total, FULL_KEY);
    let rest = 1 - eps;
    for (const i of top) {
      if (!this.stuck(i)) continue;
      w[i] += ((1 - eps) * l[i]) / scale;
      rest -= ((1 - eps) * l[i]) / scale;
    }
    if (open > 0) {
      for (const i of top) if (!this.stuck(i)) w[i] += (rest * l[i]) / open;
      return w;
    }
    const able = eligible.filter((i) => !this.stuck(i));
    const pool = able.length ? able : eligible;
    for (const i of pool) w[i] += rest / pool.length;
    return w;
  }

  override update(results: readonly EpisodeResult[]): void {
    for (const result of results) {
      const wasStuck = this.stuck(this.book.indexOf(result.key));
      super.update([result]);
      if (!wasStuck) continue;
      this.stuckTries++;
      this.recoveries += result.score ?? (result.passed ? 1 : 0);
    }
  }

  protected override saveExtra(): RecoveryState {
    return { stuckTries: this.stuckTries, recoveries: this.recoveries };
  }

  protected override loadExtra(state: unknown): void {
    const s = state as RecoveryState | null;
    if (!s || !Number.isFinite(s.stuckTries) || !Number.isFinite(s.recoveries))
      throw configError("bad_sampler_snapshot", "learnability-recovery snapshot: no recovery counts");
    this.stuckTries = s.stuckTries;
    this.recoveries = s.recoveries;
  }
}
