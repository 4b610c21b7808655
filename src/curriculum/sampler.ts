import type { TaskKey } from "./task-key.ts";

/** What one episode told the curriculum about its key. */
export interface EpisodeResult {
  key: TaskKey;
  passed: boolean;
  /** Verifier score in [0, 1]; default 1 when passed, else 0. */
  score?: number;
  /** Process penalty in [0, 1] (`processPenalty(summary)`): how wasteful the episode was, pass or fail. */
  process?: number;
}

export interface SampleOptions {
  /** Keys that may be drawn now (the difficulty controller's levels, review gates); default all. */
  eligible?: (key: TaskKey, index: number) => boolean;
}

/** A sampler's whole state as plain JSON: `restore(snapshot())` continues exactly where it was. */
export interface SamplerSnapshot {
  schemaVersion: 1;
  strategy: string;
  /** Hash of the key space (the same keys in the same order), checked on restore. */
  keys: string;
  // biome-ignore lint/suspicious/noExplicitAny: each strategy stores its own state
  state: any;
}

/**
 * One interface for every curriculum strategy. Deterministic given (seed, history): the same seed and
 * the same sequence of `sample`/`update` calls give the same draws; no `Math.random`, no clock.
 */
export interface Sampler {
  readonly strategy: string;
  readonly keys: readonly TaskKey[];
  /** Draws `k` keys (with replacement), advancing the sampler's random stream. */
  sample(k: number, opts?: SampleOptions): TaskKey[];
  /** Feeds back finished episodes. */
  update(results: readonly EpisodeResult[]): void;
  /** The probability of each key (index order) for the next draw, without drawing. */
  probabilities(opts?: SampleOptions): Float64Array;
  snapshot(): SamplerSnapshot;
  restore(snapshot: SamplerSnapshot): void;
}
