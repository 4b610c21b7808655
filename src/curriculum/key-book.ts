import { configError } from "../core/errors.ts";
import { hashJson } from "../core/hash.ts";
import { type TaskKey, taskKeyId } from "./task-key.ts";

/** What a KeyBook saves: per-key counters, in key order. */
export interface KeyBookState {
  clock: number;
  recent: number[][];
  results: number[];
  sampled: number[];
  lastSampled: number[];
  process: (number | null)[];
}

/**
 * The bookkeeping every sampler shares: for each key, its last `window` scores, how many results and
 * draws it had, when it was last drawn (`clock` counts draws, starting at 1), and a moving average of
 * its process penalty. Plain arrays, so a snapshot is JSON.
 */
export class KeyBook {
  readonly keys: readonly TaskKey[];
  readonly ids: readonly string[];
  readonly hash: string;
  readonly window: number;
  readonly #index = new Map<string, number>();
  clock = 0;
  recent: number[][];
  results: number[];
  sampled: number[];
  lastSampled: number[];
  process: (number | null)[];

  constructor(keys: readonly TaskKey[], window: number) {
    if (keys.length === 0) throw configError("empty_task_space", "a sampler needs at least one task key");
    if (!(window >= 1)) throw configError("bad_sampler_option", `window must be >= 1, got ${window}`);
    this.keys = keys.map((k) => ({ ...k }));
    this.ids = this.keys.map(taskKeyId);
    this.ids.forEach((id, i) => {
      if (this.#index.has(id)) throw configError("duplicate_task_key", `task key ${id} is listed twice`);
      this.#index.set(id, i);
    });
    this.hash = hashJson(this.ids);
    this.window = Math.floor(window);
    const n = keys.length;
    this.recent = Array.from({ length: n }, () => []);
    this.results = new Array(n).fill(0);
    this.sampled = new Array(n).fill(0);
    this.lastSampled = new Array(n).fill(0);
    this.process = new Array(n).fill(null);
  }

  get size(): number {
    return this.keys.length;
  }

  /** Index of a key; `unknown_task_key` when the space has no such key. */
  indexOf(key: TaskKey): number {
    const i = this.#index.get(taskKeyId(key));
    if (i === undefined)
      throw configError("unknown_task_key", `task key ${taskKeyId(key)} is not in this space`);
    return i;
  }

  markSampled(i: number): void {
    this.clock++;
    this.sampled[i]++;
    this.lastSampled[i] = this.clock;
  }

  /** Records a score (and a process penalty, averaged with weight `processRate`). */
  record(i: number, score: number, process: number | undefined, processRate = 0.2): void {
    const r = this.recent[i];
    r.push(score);
    if (r.length > this.window) r.shift();
    this.results[i]++;
    if (process !== undefined) {
      const prev = this.process[i];
      this.process[i] = prev === null ? process : prev + processRate * (process - prev);
    }
  }

  /** Mean of the key's recent scores, or `prior` when it has none. */
  mean(i: number, prior: number): number {
    const r = this.recent[i];
    if (r.length === 0) return prior;
    let s = 0;
    for (const x of r) s += x;
    return s / r.length;
  }

  /** Beta posterior mean of the recent scores: (Σx + a) / (n + a + b). */
  posterior(i: number, a: number, b: number): number {
    const r = this.recent[i];
    let s = 0;
    for (const x of r) s += x;
    return (s + a) / (r.length + a + b);
  }

  mask(eligible?: (key: TaskKey, index: number) => boolean): Uint8Array {
    const m = new Uint8Array(this.size);
    for (let i = 0; i < this.size; i++) m[i] = !eligible || eligible(this.keys[i], i) ? 1 : 0;
    return m;
  }

  save(): KeyBookState {
    return {
      clock: this.clock,
      recent: this.recent.map((r) => r.slice()),
      results: this.results.slice(),
      sampled: this.sampled.slice(),
      lastSampled: this.lastSampled.slice(),
      process: this.process.slice(),
    };
  }

  load(state: KeyBookState): void {
    const n = this.size;
    const ok =
      state &&
      Number.isInteger(state.clock) &&
      [state.recent, state.results, state.sampled, state.lastSampled, state.process].every(
        (a) => Array.isArray(a) && a.length === n,
      );
    if (!ok)
      throw configError("bad_sampler_snapshot", "sampler snapshot: key book does not fit this key space");
    this.clock = state.clock;
    this.recent = state.recent.map((r) => r.slice());
    this.results = state.results.slice();
    this.sampled = state.sampled.slice();
    this.lastSampled = state.lastSampled.slice();
    this.process = state.process.slice();
  }
}
