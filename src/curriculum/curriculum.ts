import type { Action, Observation, Task } from "../core/contracts.ts";
import { configError, ProvingError } from "../core/errors.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import { createSampler, DEFAULT_STRATEGY } from "./create-sampler.ts";
import type { GymWorlds } from "./curriculum-gym.ts";
import {
  type DifficultyChange,
  DifficultyController,
  type DifficultyOptions,
  type DifficultyState,
} from "./difficulty-controller.ts";
import {
  addProcess,
  type ProcessSummary,
  ProcessTracker,
  processPenalty,
  type TransitionSignals,
} from "./process-feedback.ts";
import { heldoutManifest, regressionManifest } from "./regression-manifest.ts";
import type { EpisodeResult, Sampler, SamplerSnapshot } from "./sampler.ts";
import type { SplitFile } from "./split-file.ts";
import { type TaskKey, taskKeyId } from "./task-key.ts";
import { buildTaskSpace, familyOf, type TaskSpace } from "./task-space.ts";

/** How a curriculum is set up: the split file and the strategy, seed and difficulty adjustment. */
export interface CurriculumOptions {
  split: SplitFile;
  /** Default `learnability` (DEFAULT_STRATEGY). */
  strategy?: string;
  strategyOptions?: JsonObject;
  /** Seed of the sampler's stream and of the generated tasks' seeds (default 1). */
  seed?: number;
  /** Per-family difficulty adjustment (`false`: the sampler picks any difficulty). Default on. */
  difficulty?: false | Omit<DifficultyOptions, "families">;
}

/** A task the curriculum generated for the next episode: its key, seed and the world's task. */
export interface GeneratedTask {
  key: TaskKey;
  /** The variant spec when the key is a harness variant. */
  variant?: JsonValue;
  seed: number;
  task: Task;
  /** Which draw of the curriculum this was (1-based). */
  index: number;
}

/** One result the difficulty controller learns from: a family (`world-or-variant/family`) at a level. */
export interface Performance {
  family: string;
  difficulty: number;
  /** Score in [0, 1] (1 passed, 0 failed). */
  score: number;
}

/** What `updateDistribution` takes: an episode's result, with its process summary or penalty. */
export interface Feedback {
  key: TaskKey;
  passed: boolean;
  score?: number;
  /** A process summary (counted per key), or a penalty in [0, 1]; default: the transitions seen since the last feedback. */
  process?: ProcessSummary | number;
}

/** The whole state of a curriculum as plain JSON: `restore(snapshot())` continues exactly where it was. */
export interface CurriculumSnapshot {
  schemaVersion: 1;
  /** Episodes (draws) so far. */
  episode: number;
  sampler: SamplerSnapshot;
  difficulty: DifficultyState | null;
  /** Process signals summed per task key id (keys with feedback only). */
  process?: Record<string, ProcessSummary>;
  /** The highest difficulty each family (`world/family`) has passed (families with a pass only). */
  passedUpTo?: Record<string, number>;
}

/** A dynamic episode's seed: far from the small seeds splits list, and never a frozen task's seed. */
export function episodeSeed(
  runSeed: number,
  index: number,
  key: TaskKey,
  frozen: ReadonlySet<string>,
): number {
  let seed = 1_000_000 + runSeed * 10_000 + index;
  while (frozen.has(`${taskKeyId(key)}#${seed}`)) seed += 1_000_000_000;
  return seed;
}

/**
 * The environment layer on one object: the task distribution (a sampler over the split's dynamic
 * space), the difficulty curve (a per-family DifficultyController), process feedback
 * (`evaluateTransition`, summed per key) and the frozen splits kept out of the dynamic seeds. The
 * pieces are the module's own (createSampler, DifficultyController, ProcessTracker); this class only
 * wires them. Deterministic given (seed, calls); `runCurriculum` drives one per run.
 */
export class Curriculum {
  readonly space: TaskSpace;
  readonly sampler: Sampler;
  readonly controller: DifficultyController | undefined;
  readonly seed: number;
  readonly #gym: Pick<GymWorlds, "world">;
  readonly #variants = new Map<string, JsonValue>();
  readonly #frozen: ReadonlySet<string>;
  readonly #families: string[];
  /** The highest level each key's family has unlocked (by key index), valid while the controller's revision is `#levelsAt`. */
  readonly #levelOfKey: Float64Array;
  #levelsAt = -1;
  #episode = 0;
  #tracker = new ProcessTracker();
  #process = new Map<string, ProcessSummary>();
  /** The highest difficulty each family has passed: the level above it is unlocked. */
  #passedUpTo = new Map<string, number>();
  #passedRevision = 0;

  constructor(gym: GymWorlds, opts: CurriculumOptions) {
    this.#gym = gym;
    this.seed = opts.seed ?? 1;
    this.space = buildTaskSpace(opts.split, gym);
    for (const e of this.space.dynamic)
      if (e.variant !== undefined) this.#variants.set(taskKeyId(e.key), e.variant);
    this.sampler = createSampler(
      opts.strategy ?? DEFAULT_STRATEGY,
      { keys: this.space.dynamic.map((e) => e.key), seed: this.seed },
      opts.strategyOptions ?? {},
    );
    this.controller =
      opts.difficulty === false
        ? undefined
        : new DifficultyController({ ...(opts.difficulty ?? {}), families: this.space.levels });
    this.#families = this.sampler.keys.map(familyOf);
    this.#levelOfKey = new Float64Array(this.#families.length);
    const regression = regressionManifest(opts.split, gym);
    const heldout =
      this.space.heldout.length || opts.split.heldout.tasks.length
        ? heldoutManifest(opts.split, gym, this.space.heldout)
        : undefined;
    this.#frozen = new Set(
      [...regression.tasks, ...(heldout?.tasks ?? [])].map((t) => `${taskKeyId(t.key)}#${t.seed}`),
    );
  }

  /** Draws so far. */
  get episode(): number {
    return this.#episode;
  }

  /** The variant spec of a key of the space (undefined for a base world's key). */
  variantOf(key: TaskKey): JsonValue | undefined {
    return this.#variants.get(taskKeyId(key));
  }

  /** The seed of draw `index` for `key` (never a regression or held-out task's seed). */
  seedFor(key: TaskKey, index: number): number {
    return episodeSeed(this.seed, index, key, this.#frozen);
  }

  /**
   * The next key: a sampler draw among the keys its family's difficulty has unlocked — every level up
   * to one above the family's current difficulty or its highest passed one, whichever is higher (all
   * keys without difficulty adjustment) — narrowed by
   * `filter`, or, when no unlocked key passes the filter, among all the filter's keys. The sampler
   * ranks difficulties too: a family's mastered levels, its learnable level and the next one up are all
   * in its reach. Advances the episode count.
   */
  nextKey(filter?: (key: TaskKey, i: number) => boolean): TaskKey {
    const c = this.controller;
    const reach = c ? this.#currentReach(c) : undefined;
    const eligible =
      reach || filter
        ? (key: TaskKey, i: number) => (!reach || key.difficulty <= reach[i]) && (!filter || filter(key, i))
        : undefined;
    let key: TaskKey;
    try {
      [key] = this.sampler.sample(1, eligible ? { eligible } : {});
    } catch (err) {
      // no key of the filter at its family's current level (e.g. none pooled there): any level of the filter
      if (!(c && filter && err instanceof ProvingError && err.code === "empty_task_space")) throw err;
      [key] = this.sampler.sample(1, { eligible: filter });
    }
    this.#episode++;
    return key;
  }

  /**
   * The chance of each key (the sampler's key order) at the next `nextKey()` without a filter: the
   * sampler's probabilities over the keys the difficulty has unlocked. Draws nothing.
   */
  nextKeyProbabilities(): Float64Array {
    const c = this.controller;
    const reach = c ? this.#currentReach(c) : undefined;
    return this.sampler.probabilities(
      reach ? { eligible: (key: TaskKey, i: number) => key.difficulty <= reach[i] } : {},
    );
  }

  /**
   * The highest difficulty each key's family has unlocked (one level above its current one, or its
   * top level), looked up again only after the controller changed a level.
   */
  #currentReach(c: DifficultyController): Float64Array {
    const revision = c.revision + this.#passedRevision;
    if (this.#levelsAt !== revision) {
      const byFamily = c.levels();
      this.#families.forEach((f, i) => {
        const level = Math.max(byFamily[f] ?? c.level(f), this.#passedUpTo.get(f) ?? 0);
        const levels = this.space.levels[f] ?? [level];
        this.#levelOfKey[i] = levels.reduce(
          (up, d) => (d > level && (up === level || d < up) ? d : up),
          level,
        );
      });
      this.#levelsAt = revision;
    }
    return this.#levelOfKey;
  }

  /**
   * A task for the next episode. `type` narrows to a family (its name, or `world/family`);
   * `difficulty` asks for that level instead of the family's current one. The key is drawn by the
   * sampler, the seed is the episode's, the task is the world's generator's (`empty_task_space` when
   * nothing fits).
   */
  generateTask(difficulty?: number, type?: string): GeneratedTask {
    const families = this.#families;
    const fits = (key: TaskKey, i: number) =>
      (type === undefined || key.family === type || families[i] === type) &&
      (difficulty === undefined || key.difficulty === difficulty);
    let key: TaskKey;
    if (difficulty === undefined) key = this.nextKey(type === undefined ? undefined : fits);
    else {
      const [k] = this.sampler.sample(1, { eligible: fits });
      this.#episode++;
      key = k;
    }
    const index = this.#episode;
    const seed = this.seedFor(key, index);
    const task = this.#gym.world(key.world).generateTask({
      family: key.family,
      difficulty: key.difficulty,
      seed,
      split: "dynamic",
    });
    const variant = this.variantOf(key);
    return { key, ...(variant !== undefined ? { variant } : {}), seed, task, index };
  }

  /** Feeds the difficulty controller; returns the level changes it made. */
  adjustDifficulty(performance: Performance | readonly Performance[]): DifficultyChange[] {
    const list = Array.isArray(performance) ? performance : [performance as Performance];
    const changes: DifficultyChange[] = [];
    if (!this.controller) return changes;
    for (const p of list) {
      const change = this.controller.record(p.family, p.difficulty, p.score);
      if (change) changes.push(change);
    }
    return changes;
  }

  /** One step's process signals, counted into the current episode (until the next `updateDistribution`). */
  evaluateTransition(
    observation: Observation,
    action: Action,
    reward: number,
    next: Observation,
  ): TransitionSignals {
    return this.#tracker.evaluateTransition(observation, action, reward, next);
  }

  /**
   * Feeds finished episodes to the sampler (score and process penalty), sums their process summaries
   * per key and notes each family's highest passed difficulty (the level above it is unlocked). A feedback without `process` takes the transitions evaluated since the last call.
   */
  updateDistribution(feedback: Feedback | readonly Feedback[]): void {
    const list = Array.isArray(feedback) ? feedback : [feedback as Feedback];
    const results: EpisodeResult[] = [];
    for (const f of list) {
      const given = f.process;
      const summary =
        given === undefined ? this.#tracker.summary() : typeof given === "number" ? undefined : given;
      if (given === undefined) this.#tracker = new ProcessTracker();
      const penalty = typeof given === "number" ? given : processPenalty(summary as ProcessSummary);
      if (summary) {
        const id = taskKeyId(f.key);
        const sum = this.#process.get(id);
        this.#process.set(id, sum ? addProcess(sum, summary) : summary);
      }
      if (f.passed) this.#passed(familyOf(f.key), f.key.difficulty);
      results.push({
        key: f.key,
        passed: f.passed,
        score: f.score ?? (f.passed ? 1 : 0),
        process: penalty,
      });
    }
    this.sampler.update(results);
  }

  /** Both feedbacks of one finished episode: the distribution and its family's difficulty. */
  record(key: TaskKey, passed: boolean, process: ProcessSummary): DifficultyChange | undefined {
    this.updateDistribution({ key, passed, process });
    return this.adjustDifficulty({
      family: familyOf(key),
      difficulty: key.difficulty,
      score: passed ? 1 : 0,
    })[0];
  }

  #passed(family: string, difficulty: number): void {
    if (difficulty <= (this.#passedUpTo.get(family) ?? 0)) return;
    this.#passedUpTo.set(family, difficulty);
    this.#passedRevision++;
  }

  /** Process signals summed per task key id. */
  processByKey(): Record<string, ProcessSummary> {
    return Object.fromEntries([...this.#process.entries()].map(([k, v]) => [k, { ...v }]));
  }

  snapshot(): CurriculumSnapshot {
    return {
      schemaVersion: 1,
      episode: this.#episode,
      sampler: this.sampler.snapshot(),
      difficulty: this.controller?.snapshot() ?? null,
      process: this.processByKey(),
      passedUpTo: Object.fromEntries(this.#passedUpTo),
    };
  }

  /** Restores a snapshot of a curriculum over the same space and strategy (`bad_sampler_snapshot` otherwise). */
  restore(snapshot: CurriculumSnapshot): void {
    if (snapshot?.schemaVersion !== 1 || !Number.isInteger(snapshot.episode))
      throw configError("bad_sampler_snapshot", "not a curriculum snapshot");
    this.sampler.restore(snapshot.sampler);
    if (this.controller && snapshot.difficulty) this.controller.restore(snapshot.difficulty);
    this.#episode = snapshot.episode;
    this.#process = new Map(Object.entries(snapshot.process ?? {}).map(([k, v]) => [k, { ...v }]));
    this.#tracker = new ProcessTracker();
    this.#passedUpTo = new Map(Object.entries(snapshot.passedUpTo ?? {}));
    this.#passedRevision++;
  }
}

/** The curriculum of a split file for a gym (see `Curriculum`). */
export function createCurriculum(gym: GymWorlds, options: CurriculumOptions): Curriculum {
  return new Curriculum(gym, options);
}
