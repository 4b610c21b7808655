import { configError } from "../core/errors.ts";
import { Rng, type RngState } from "../core/rng.ts";
import { KeyBook, type KeyBookState } from "./key-book.ts";
import type { EpisodeResult, SampleOptions, Sampler, SamplerSnapshot } from "./sampler.ts";
import type { TaskKey } from "./task-key.ts";
import { normalize, weightedDraw } from "./weighted-draw.ts";

export interface BaseSamplerOptions {
  keys: readonly TaskKey[];
  /** Seed of the sampler's random stream. */
  seed: number;
  /** Recent results kept per key (default 10). */
  window?: number;
}

/**
 * The plumbing every strategy shares: the key book, the seeded random stream, draws with an
 * eligibility mask, snapshots. A strategy supplies `weights(mask)` (unnormalized, per key) and may
 * keep extra state (`saveExtra`/`loadExtra`, `onResult`).
 */
export abstract class BaseSampler implements Sampler {
  abstract readonly strategy: string;
  protected readonly book: KeyBook;
  protected rng: Rng;

  constructor(opts: BaseSamplerOptions) {
    if (!Number.isInteger(opts.seed))
      throw configError("bad_seed", `sampler seed must be an integer, got ${opts.seed}`);
    this.book = new KeyBook(opts.keys, opts.window ?? 10);
    this.rng = Rng.seeded(opts.seed, "curriculum.sampler");
  }

  get keys(): readonly TaskKey[] {
    return this.book.keys;
  }

  /** Unnormalized weight of each key for the next draw; masked-out keys are ignored. */
  protected abstract weights(mask: Uint8Array): Float64Array;

  protected onResult(_i: number, _result: EpisodeResult, _score: number): void {}
  protected saveExtra(): unknown {
    return null;
  }
  protected loadExtra(_state: unknown): void {}

  probabilities(opts: SampleOptions = {}): Float64Array {
    const mask = this.book.mask(opts.eligible);
    return normalize(this.weights(mask), mask);
  }

  sample(k: number, opts: SampleOptions = {}): TaskKey[] {
    if (!Number.isInteger(k) || k < 0)
      throw configError("bad_sampler_option", `sample(k): k must be a whole number, got ${k}`);
    const mask = this.book.mask(opts.eligible);
    const eligible: number[] = [];
    for (let i = 0; i < mask.length; i++) if (mask[i]) eligible.push(i);
    if (k > 0 && eligible.length === 0)
      throw configError("empty_task_space", "no eligible task key to sample");
    const out: TaskKey[] = [];
    for (let j = 0; j < k; j++) {
      const p = normalize(this.weights(mask), mask);
      const i = weightedDraw(this.rng, p, eligible);
      this.book.markSampled(i);
      out.push({ ...this.book.keys[i] });
    }
    return out;
  }

  update(results: readonly EpisodeResult[]): void {
    for (const r of results) {
      const i = this.book.indexOf(r.key);
      const score = r.score ?? (r.passed ? 1 : 0);
      this.book.record(i, score, r.process);
      this.onResult(i, r, score);
    }
  }

  snapshot(): SamplerSnapshot {
    return {
      schemaVersion: 1,
      strategy: this.strategy,
      keys: this.book.hash,
      state: { rng: this.rng.saveState(), book: this.book.save(), extra: this.saveExtra() as never },
    };
  }

  restore(snapshot: SamplerSnapshot): void {
    if (
      snapshot?.schemaVersion !== 1 ||
      snapshot.strategy !== this.strategy ||
      snapshot.keys !== this.book.hash
    ) {
      throw configError(
        "bad_sampler_snapshot",
        `snapshot of ${snapshot?.strategy} over key space ${snapshot?.keys} does not fit this ${this.strategy} sampler (${this.book.hash})`,
      );
    }
    const state = snapshot.state as { rng: RngState; book: KeyBookState; extra: unknown };
    this.book.load(state.book);
    this.rng = Rng.fromState(state.rng);
    this.loadExtra(state.extra);
  }
}
