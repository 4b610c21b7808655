/**
 * The curriculum as the task source of `proving serve --curriculum` (`TaskSource`, src/serve): a reset
 * that leaves the task to the server draws the next key from the curriculum (its sampler, over the
 * keys its difficulty controller has unlocked) and the key's episode seed; each drawn episode that
 * ends feeds its trial's verdict and process back (`Curriculum.record`), and is stored as an episode
 * of the run's history (`curriculum_episodes`, with a snapshot), so `proving curriculum show|report`
 * read it and a server restarted on the same store and run id continues where it stopped. Episodes
 * abandoned before their end and infrastructure outcomes never reach the sampler (counted apart);
 * held-out tasks (the split's held-out manifest, in turn) are served only to a reset that asks with
 * `split: "heldout"` and never train it. A group of rollouts on one task (GRPO) is judged once every
 * member settled: all passed or all failed counts once (DAPO's dynamic sampling: such a group has no
 * advantage to learn from), a mixed group counts each member.
 */
import { isInfraOutcome, type TrialRecord } from "../core/contracts.ts";
import { configError, errorMessage, internalError, ProvingError } from "../core/errors.ts";
import { canonicalJson, hashString } from "../core/hash.ts";
import type { JsonObject } from "../core/json.ts";
import { quoteInput } from "../core/quote-input.ts";
import { type ResetParams, ServeError } from "../serve/protocol.ts";
import type { SourcedTask, TaskSource } from "../serve/task-source.ts";
import { Curriculum, type CurriculumSnapshot } from "./curriculum.ts";
import type { GymWorlds } from "./curriculum-gym.ts";
import { generationOf, keyOfRow } from "./curriculum-records.ts";
import { curriculumConfig } from "./curriculum-run.ts";
import type { DifficultyOptions } from "./difficulty-controller.ts";
import { informative } from "./dynamic-sampling.ts";
import type { CurriculumHistory } from "./history.ts";
import { summarizeProcess } from "./process-feedback.ts";
import { heldoutManifest, type ManifestTask } from "./regression-manifest.ts";
import type { SplitFile } from "./split-file.ts";
import type { CurriculumEpisodesTable } from "./store-tables.ts";
import { type TaskKey, taskKeyId } from "./task-key.ts";

export interface ServedCurriculumOptions {
  gym: GymWorlds;
  /** The run's history: the store's curriculum tables (`openCurriculumStore`), or memory. */
  history: CurriculumHistory;
  /** The run's id; a server started again with the same id (and settings) continues the run. */
  id: string;
  split: SplitFile;
  /** What the server serves: its world id, and the variant id when it serves a harnessed variant. */
  served: { world: string; variant?: string };
  /** Default `learnability`. */
  strategy?: string;
  strategyOptions?: JsonObject;
  /** The sampler's and the episode seeds' seed (default 1). */
  seed?: number;
  /** Per-family difficulty adjustment (`false`: the sampler picks any difficulty). Default on. */
  difficulty?: false | Omit<DifficultyOptions, "families">;
  /** The server's step cap (stored with the run's settings). */
  maxSteps?: number;
  now?: () => Date;
  /** Told of each failed history write (the server goes on); default: one line on stderr. */
  onError?: (err: ProvingError) => void;
}

/** One draw: the key and seed a reset (or a group) was given, from the distribution `snapshotId` names. */
interface Draw {
  key: TaskKey;
  seed: number;
  split: "dynamic" | "heldout";
  snapshotId: string;
}

/** A group's members as they settle: the records that count (no infrastructure outcome), and how many are still out. */
interface GroupState {
  id: string;
  out: number;
  records: TrialRecord[];
}

const tally = () => ({ episodes: 0, passes: 0 });

/**
 * The served curriculum: a `TaskSource` over one `Curriculum` and its history. Open it with
 * `ServedCurriculum.open` (restores the stored run), hand it to `startServer({taskSource})`, and
 * `close()` it after the server closed (the history writes finish).
 */
export class ServedCurriculum implements TaskSource {
  readonly id: string;
  readonly strategy: string;
  /** The families a reset may name or derive from its seed (the dynamic split's, of the served world). */
  readonly dynamicFamilies: string[];
  readonly #state: Curriculum;
  readonly #history: CurriculumHistory;
  readonly #verifier: string;
  readonly #heldoutTasks: ManifestTask[];
  readonly #heldoutFamilies: ReadonlySet<string>;
  readonly #onError: (err: ProvingError) => void;
  readonly #perKey = new Map<string, { episodes: number; passes: number }>();
  readonly #heldout = tally();
  readonly #groups = { all_passed: 0, all_failed: 0, mixed: 0 };
  #heldoutNext = 0;
  /** Rows written (episodes and infrastructure attempts): the next row's index is one more. */
  #rows = 0;
  #episodes = 0;
  #infra = 0;
  #abandoned = 0;
  #snapshotId = "";
  #writes: Promise<void> = Promise.resolve();
  #closed = false;

  private constructor(opts: ServedCurriculumOptions, state: Curriculum, verifier: string) {
    this.id = opts.id;
    this.strategy = state.sampler.strategy;
    this.#state = state;
    this.#history = opts.history;
    this.#verifier = verifier;
    this.#onError =
      opts.onError ??
      ((err) => process.stderr.write(`proving serve: curriculum ${opts.id} (${err.code}): ${err.message}\n`));
    const served = (key: TaskKey) =>
      key.world === opts.served.world && (key.variant ?? undefined) === opts.served.variant;
    this.dynamicFamilies = [...new Set(state.space.dynamic.map((e) => e.key.family))];
    this.#heldoutFamilies = new Set(opts.split.heldout.families);
    this.#heldoutTasks =
      state.space.heldout.length || opts.split.heldout.tasks.length
        ? heldoutManifest(opts.split, opts.gym, state.space.heldout).tasks.filter((t) => served(t.key))
        : [];
  }

  /**
   * The curriculum of `split` for the served world, as stored under `id` when the history has it (the
   * latest snapshot restored, later episodes fed again); a new run otherwise. Throws
   * `curriculum_conflict` for a stored run with other settings, `curriculum_not_served` when the
   * split's dynamic space has keys of another world or variant than the one served.
   */
  static async open(opts: ServedCurriculumOptions): Promise<ServedCurriculum> {
    const config = {
      ...curriculumConfig({
        id: opts.id,
        split: opts.split,
        agent: "serve",
        episodes: 0,
        ...(opts.strategy !== undefined ? { strategy: opts.strategy } : {}),
        strategyOptions: opts.strategyOptions ?? {},
        seed: opts.seed ?? 1,
        difficulty: opts.difficulty ?? {},
        snapshotEvery: 1,
        budget: { maxSteps: opts.maxSteps ?? 200 },
      }),
      served: { world: opts.served.world, ...(opts.served.variant ? { variant: opts.served.variant } : {}) },
    };
    const state = new Curriculum(opts.gym, {
      split: config.split,
      strategy: config.strategy,
      strategyOptions: config.strategyOptions,
      seed: config.seed,
      difficulty: config.difficulty,
    });
    const foreign = state.space.dynamic.find(
      (e) => e.key.world !== opts.served.world || (e.key.variant ?? undefined) !== opts.served.variant,
    );
    if (foreign) {
      throw configError(
        "curriculum_not_served",
        `split ${opts.split.name} has ${taskKeyId(foreign.key)} in its dynamic space; this server serves ${opts.served.variant ?? opts.served.world} only (give a split of its keys)`,
      );
    }
    const history = opts.history;
    const createdAt = (opts.now ?? (() => new Date()))().toISOString();
    const run = await history.createRun(opts.id, config as unknown as Record<string, unknown>, createdAt);
    if (settingsOf(run.config) !== settingsOf(config)) {
      throw configError(
        "curriculum_conflict",
        `curriculum run ${opts.id} is stored with other settings (split, strategy, seed, difficulty, world or step cap); serve it as it is or give another --curriculum-id`,
      );
    }
    await history.setStatus(opts.id, "running");
    const source = new ServedCurriculum(opts, state, opts.gym.world(opts.served.world).verifier);
    await source.#restore();
    return source;
  }

  /** The stored run: the latest snapshot, then the episodes after it fed again (no draw). */
  async #restore(): Promise<void> {
    const history = this.#history;
    const rows = await history.episodes(this.id);
    const last = rows.length ? rows[rows.length - 1].idx : 0;
    const snap = await history.latestSnapshot(this.id, last);
    if (snap) this.#state.restore(snap.snapshot as CurriculumSnapshot);
    let fed = false;
    for (const row of rows) {
      if (isInfraOutcome(row.outcome)) {
        this.#infra++;
        continue;
      }
      this.#episodes++;
      this.#count(row.task_key, row.passed === 1);
      if (snap && row.idx <= snap.afterEpisode) continue;
      this.#state.record(keyOfRow(row), row.passed === 1, JSON.parse(row.process));
      fed = true;
    }
    this.#rows = last;
    this.#snapshotId = snapshotIdOf(snap && !fed ? snap.snapshot : this.#state.snapshot());
  }

  draw(params: ResetParams): SourcedTask | undefined {
    const draw = this.#next(params);
    return draw && this.#handle(draw);
  }

  drawGroup(params: ResetParams, groupId: string, size: number): SourcedTask[] | undefined {
    const draw = this.#next(params);
    if (!draw) return undefined;
    const group: GroupState = { id: groupId, out: size, records: [] };
    return Array.from({ length: size }, () => this.#handle(draw, group));
  }

  /** The draw of a reset that left its task to the curriculum; `undefined` for one that chose it. */
  #next(params: ResetParams): Draw | undefined {
    const chose = params.seed !== undefined || params.family !== undefined || params.difficulty !== undefined;
    if (chose) {
      if (params.split !== undefined) {
        throw new ServeError(
          "VALIDATION_ERROR",
          "reset.split asks the curriculum for a task: send it without seed, family or difficulty",
        );
      }
      if (params.family !== undefined && this.#heldoutFamilies.has(params.family)) {
        throw new ServeError(
          "VALIDATION_ERROR",
          `reset.family: "${quoteInput(params.family, 64)}" is held out; reset with {"split": "heldout"} for a held-out task`,
        );
      }
      return undefined;
    }
    if (params.split === "heldout") {
      const tasks = this.#heldoutTasks;
      if (!tasks.length)
        throw new ServeError("VALIDATION_ERROR", "reset.split: this curriculum holds no task out");
      const t = tasks[this.#heldoutNext++ % tasks.length];
      return { key: t.key, seed: t.seed, split: "heldout", snapshotId: this.#snapshotId };
    }
    const key = this.#state.nextKey();
    const seed = this.#state.seedFor(key, this.#state.episode);
    return { key, seed, split: "dynamic", snapshotId: this.#snapshotId };
  }

  /** One episode's handle on a draw: settled once, by its record or its abandonment. */
  #handle(draw: Draw, group?: GroupState): SourcedTask {
    let settled = false;
    const settle = () => {
      if (settled || this.#closed) return false;
      settled = true;
      return true;
    };
    return {
      family: draw.key.family,
      difficulty: draw.key.difficulty,
      seed: draw.seed,
      metadata: {
        snapshot_id: draw.snapshotId,
        key: taskKeyId(draw.key),
        ...(draw.split === "heldout" ? { split: "heldout" } : {}),
        ...(group ? { group_id: group.id } : {}),
      },
      finished: (record) => {
        if (!settle()) return;
        this.#guarded(() => {
          if (isInfraOutcome(record.outcome)) this.#infraAttempt(draw, record);
          else if (group) group.records.push(record);
          else this.#learn(draw, record);
          if (group) this.#memberSettled(draw, group);
        });
      },
      abandoned: () => {
        if (!settle()) return;
        this.#abandoned++;
        if (group) this.#guarded(() => this.#memberSettled(draw, group));
      },
    };
  }

  #memberSettled(draw: Draw, group: GroupState): void {
    if (--group.out > 0 || !group.records.length) return;
    const records = group.records;
    if (draw.split === "dynamic") {
      const passed = records.map((r) => r.outcome === "passed");
      if (!informative({ task: draw.key, passed })) {
        // all passed or all failed: one result (DAPO: the group has no advantage to learn from)
        if (passed[0]) this.#groups.all_passed++;
        else this.#groups.all_failed++;
        this.#learn(draw, records[0]);
        return;
      }
      this.#groups.mixed++;
    }
    for (const r of records) this.#learn(draw, r);
  }

  /** A result that counts: a held-out task's tally, or the curriculum's update and a stored episode. */
  #learn(draw: Draw, record: TrialRecord): void {
    const passed = record.outcome === "passed";
    if (draw.split === "heldout") {
      this.#heldout.episodes++;
      if (passed) this.#heldout.passes++;
      return;
    }
    const process = summarizeProcess(record.initial, record.steps);
    this.#state.record(draw.key, passed, process);
    this.#episodes++;
    this.#count(taskKeyId(draw.key), passed);
    const snapshot = this.#state.snapshot();
    this.#snapshotId = snapshotIdOf(snapshot);
    this.#save(this.#row(draw, record, process), snapshot);
  }

  /** An infrastructure outcome: counted apart and stored as an attempt (a dynamic draw's), never learned from. */
  #infraAttempt(draw: Draw, record: TrialRecord): void {
    this.#infra++;
    if (draw.split === "dynamic")
      this.#save(this.#row(draw, record, summarizeProcess(record.initial, record.steps)));
  }

  #count(key: string, passed: boolean): void {
    const t = this.#perKey.get(key) ?? tally();
    t.episodes++;
    if (passed) t.passes++;
    this.#perKey.set(key, t);
  }

  #row(draw: Draw, record: TrialRecord, process: object): CurriculumEpisodesTable {
    const key = draw.key;
    return {
      run_id: this.id,
      idx: ++this.#rows,
      task_key: taskKeyId(key),
      world: key.world,
      variant_id: key.variant ?? null,
      family: key.family,
      difficulty: key.difficulty,
      split: "dynamic",
      seed: draw.seed,
      trial_id: record.spec.id,
      outcome: record.outcome,
      passed: record.outcome === "passed" ? 1 : 0,
      process: JSON.stringify(process),
      generation: JSON.stringify(generationOf(record, this.#verifier)),
    };
  }

  /** Writes a row (with its snapshot) after the ones before it; a failure is reported and the server goes on. */
  #save(row: CurriculumEpisodesTable, snapshot?: CurriculumSnapshot): void {
    this.#writes = this.#writes.then(() =>
      this.#history.saveEpisode(row, snapshot).catch((err: unknown) => this.#report(err)),
    );
  }

  /** Runs what an episode's report does; a failure is reported and the server goes on (never thrown at it). */
  #guarded(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#onError(
        err instanceof ProvingError
          ? err
          : internalError("curriculum_feedback_failed", `curriculum ${this.id}: ${errorMessage(err)}`),
      );
    }
  }

  #report(err: unknown): void {
    this.#onError(
      err instanceof ProvingError
        ? err
        : new ProvingError("store_failed", `curriculum ${this.id}: ${errorMessage(err)}`, { cause: err }),
    );
  }

  describe(): JsonObject {
    const p = this.#state.nextKeyProbabilities();
    return {
      id: this.id,
      strategy: this.strategy,
      snapshot_id: this.#snapshotId,
      episodes: this.#episodes,
      distribution: this.#state.sampler.keys.map((key, i) => {
        const t = this.#perKey.get(taskKeyId(key)) ?? tally();
        return {
          key: taskKeyId(key),
          family: key.family,
          difficulty: key.difficulty,
          probability: p[i],
          episodes: t.episodes,
          passes: t.passes,
        };
      }),
      groups: { ...this.#groups },
      infra: this.#infra,
      abandoned: this.#abandoned,
      heldout: { tasks: this.#heldoutTasks.length, ...this.#heldout },
    };
  }

  /**
   * Waits for the history writes and marks the run `interrupted` (a server started again on it
   * continues it). Call it after the server closed: episodes that settle later are not counted.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writes;
    try {
      await this.#history.setStatus(this.id, "interrupted");
    } catch (err) {
      this.#report(err);
    }
  }
}

/** The settings that fix what a run draws (a served run's `episodes` is not one of them). */
function settingsOf(config: Record<string, unknown> | object): string {
  const { episodes: _e, ...rest } = config as Record<string, unknown>;
  return canonicalJson(rest);
}

/** A snapshot's id: the hash of its JSON (the same text as stored, so a restored run names it alike). */
function snapshotIdOf(snapshot: unknown): string {
  return hashString(JSON.stringify(snapshot));
}
