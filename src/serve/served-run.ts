import type { AgentRef, Environment, TrialRecord, TrialSpec } from "../core/contracts.ts";
import { configError, errorMessage, ProvingError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import { trialId } from "../runner/manifest.ts";
import { newExperimentId } from "../runner/plan.ts";
import type { ExperimentEntry, RunEnd, TrialRecorder } from "../runner/recorder.ts";
import { StoreRecorder } from "../runner/store-recorder.ts";
import type { Store } from "../store/store.ts";
import { type ServedStart, ServedTrial } from "./served-trial.ts";
import type { ServeTarget } from "./target.ts";
import type { SourcedTask } from "./task-source.ts";

/** How an episode reached the server: the transport of its reset (`mcp`: `openenv/session/create`). */
export type ServeTransport = "http" | "ws" | "mcp";

/**
 * Where `proving serve` records its episodes: a store (opened through a `StoreRecorder` holding the
 * experiment's lease while the server runs) or any recorder of the runner's port (`plan` required).
 */
export interface ServeRecordOptions {
  store?: Store;
  recorder?: TrialRecorder;
  /** The experiment's id (default `serve-<stamp>-<random>`); it must be a new one. */
  experimentId?: string;
  /** Told of each recording failure (a coded error); default: one line on stderr. The server goes on. */
  onError?: (err: ProvingError) => void;
  /** Creation time (tests). */
  now?: () => Date;
}

/** The agent a served trial names: the remote client, by the transport it played over. */
function servedAgent(via: ServeTransport): AgentRef {
  return { id: "serve", kind: "serve", spec: `serve:${via}` };
}

/** A coded error for what a recording step threw (a driver's error is `store_failed`). */
function coded(err: unknown): ProvingError {
  return err instanceof ProvingError
    ? err
    : new ProvingError("store_failed", errorMessage(err), { cause: err });
}

/** Commit buffered records at most this long after one is handed over. */
const FLUSH_AFTER_MS = 50;

/**
 * A server's run as one experiment (`serve-<stamp>`): its config says what is served (world or
 * variant, the defaults a bare reset samples from, the step cap). Each reset plans one trial (index:
 * the episode's number in this run; the task the episode chose; agent `serve`; budget: the step cap)
 * and writes it to the manifest before the episode's first step; each episode that ends is recorded
 * through the port like a runner trial, buffered (a step never waits for the store). An episode
 * abandoned before its end (closed, reclaimed, the server stopped) stays `missing`. A store failure
 * is reported (`onError`) and the server goes on; its episodes stay `missing`.
 */
export class ServedRun {
  readonly experiment: ExperimentEntry;
  readonly #recorder: TrialRecorder;
  readonly #target: ServeTarget;
  readonly #maxSteps: number;
  readonly #onError: (err: ProvingError) => void;
  /** Earlier episodes of each (family, difficulty, seed): the next one's `repeat`. */
  readonly #repeats = new Map<string, number>();
  readonly #pending = new Set<Promise<void>>();
  /** Plans waiting for the next manifest write, and the write under way (one at a time). */
  #planQueue: { spec: TrialSpec; written: () => void; failed: (err: unknown) => void }[] = [];
  #planWrite: Promise<void> | undefined;
  #next = 0;
  #planned = 0;
  #recorded = 0;
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #closing: Promise<RunEnd> | undefined;

  private constructor(
    experiment: ExperimentEntry,
    recorder: TrialRecorder,
    target: ServeTarget,
    maxSteps: number,
    onError: (err: ProvingError) => void,
  ) {
    this.experiment = experiment;
    this.#recorder = recorder;
    this.#target = target;
    this.#maxSteps = maxSteps;
    this.#onError = onError;
  }

  /** Opens the run's experiment (empty manifest) through the recorder; throws what opening throws. */
  static async open(
    opts: ServeRecordOptions,
    target: ServeTarget,
    /** What a bare reset samples from and the step cap (the server's `EpisodeDefaults`). */
    defaults: { families?: string[]; difficulties?: number[]; maxSteps?: number },
  ): Promise<ServedRun> {
    const recorder = opts.recorder ?? (opts.store ? new StoreRecorder(opts.store, { lease: {} }) : undefined);
    if (!recorder) throw configError("bad_flag", "recording served episodes needs a store or a recorder");
    if (!recorder.plan) {
      throw configError("bad_flag", "this recorder cannot add trials to an open run (it has no `plan`)");
    }
    const createdAt = (opts.now ?? (() => new Date()))();
    const id = opts.experimentId ?? newExperimentId(createdAt).replace(/^exp-/, "serve-");
    if (opts.store && (await opts.store.getExperiment(id))) {
      throw configError(
        "experiment_exists",
        `experiment ${id} is stored already; give a new --experiment id`,
      );
    }
    const maxSteps = defaults.maxSteps ?? 200;
    const config: JsonObject = {
      id,
      kind: "serve",
      description: `episodes of ${target.id} served by proving serve`,
      world: target.world.id,
      ...(target.variant !== undefined ? { variant: target.variant, variantId: target.id } : {}),
      families: defaults.families?.length ? defaults.families : target.world.families.map((f) => f.name),
      difficulties: defaults.difficulties?.length ? defaults.difficulties : [1],
      maxSteps,
    };
    const experiment: ExperimentEntry = { id, config, createdAt: createdAt.toISOString() };
    await recorder.open(experiment, []);
    const onError =
      opts.onError ??
      ((err: ProvingError) => {
        process.stderr.write(`proving serve: recording failed (${err.code}): ${err.message}\n`);
      });
    return new ServedRun(experiment, recorder, target, maxSteps, onError);
  }

  /**
   * Plans the trial of an episode that was just reset and starts keeping it; `undefined` (reported)
   * when the plan cannot be written: that episode is served but not recorded.
   */
  async begin(
    choice: { family: string; difficulty: number; seed: number },
    via: ServeTransport,
    start: ServedStart,
    /** The task source's task the episode plays: told of the trial once it is recorded. */
    sourced?: SourcedTask,
  ): Promise<ServedTrial | undefined> {
    if (this.#closing || this.#recorder.lost) return undefined;
    const spec = this.#newSpec(choice, servedAgent(via));
    const target = this.#target;
    if (!(await this.#admit(spec))) return undefined;
    return new ServedTrial(spec, target.world, start, (record) => this.#record(record, sourced));
  }

  /**
   * Plans the trial of a fork (`Episode.forkFrom`): the parent's task, agent `serve` with
   * `config.forked_from` (the parent's episode id, trial id and step count). Its record holds the
   * parent's steps up to the fork and its own after, so it replays from the task like any trial; the
   * verdict judges the forked world, whose state (effect log included) is the parent's at the fork.
   * `undefined` (reported) when the plan cannot be written.
   */
  async fork(
    parent: ServedTrial,
    env: Environment,
    forkedFrom: { episode_id: string; step_count: number },
    via: ServeTransport,
  ): Promise<ServedTrial | undefined> {
    if (this.#closing || this.#recorder.lost) return undefined;
    const from = parent.spec;
    const agent: AgentRef = {
      ...servedAgent(via),
      config: { forked_from: { ...forkedFrom, trial_id: from.id } },
    };
    const spec = this.#newSpec(from, agent);
    if (!(await this.#admit(spec))) return undefined;
    return parent.fork(spec, env, (record) => this.#record(record));
  }

  /** The next trial's spec: its index, and its repeat among the run's trials of the same task. */
  #newSpec(choice: { family: string; difficulty: number; seed: number }, agent: AgentRef): TrialSpec {
    const { family, difficulty, seed } = choice;
    const cell = `${family}\u0000${difficulty}\u0000${seed}`;
    const repeat = this.#repeats.get(cell) ?? 0;
    this.#repeats.set(cell, repeat + 1);
    const target = this.#target;
    const variantId = target.variant !== undefined ? target.id : undefined;
    const experimentId = this.experiment.id;
    return {
      schemaVersion: 1,
      id: trialId({
        experimentId,
        world: target.world.id,
        ...(variantId !== undefined ? { variantId } : {}),
        family,
        difficulty,
        seed,
        repeat,
        agent: agent.id,
      }),
      experimentId,
      index: this.#next++,
      world: target.world.id,
      ...(variantId !== undefined ? { variant: target.variant, variantId } : {}),
      family,
      difficulty,
      seed,
      repeat,
      agent,
      budget: { maxSteps: this.#maxSteps },
    };
  }

  /** Plans `spec` and counts it; false (the failure reported) when the plan cannot be written. */
  async #admit(spec: TrialSpec): Promise<boolean> {
    try {
      await this.#plan(spec);
    } catch (err) {
      this.#onError(coded(err));
      return false;
    }
    this.#planned++;
    return true;
  }

  /**
   * Writes a spec to the manifest with the others planned meanwhile (a group commit: resets that
   * arrive while a write is under way, or in the same turn, share the next write and its fsync).
   */
  #plan(spec: TrialSpec): Promise<void> {
    return new Promise<void>((written, failed) => {
      this.#planQueue.push({ spec, written, failed });
      this.#planWrite ??= this.#writePlans();
    });
  }

  async #writePlans(): Promise<void> {
    // the resets handled in this turn join the batch
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#planQueue.length > 0) {
      const batch = this.#planQueue;
      this.#planQueue = [];
      try {
        await this.#recorder.plan!(batch.map((b) => b.spec));
        for (const b of batch) b.written();
      } catch (err) {
        for (const b of batch) b.failed(err);
      }
    }
    this.#planWrite = undefined;
  }

  #record(record: Promise<TrialRecord>, sourced?: SourcedTask): void {
    const work = record
      .then(async (r) => {
        if (!(await this.#recorder.record(r))) return undefined;
        // a curriculum learns only from what is in the store: its episode names a written trial
        if (sourced) await this.#recorder.flush();
        return r;
      })
      .then(
        (recorded) => {
          if (recorded) this.#recorded++;
          this.#flushSoon();
          // the task source learns from the episode once its trial is recorded
          if (recorded) sourced?.finished(recorded);
          else sourced?.abandoned("not recorded");
        },
        (err: unknown) => {
          this.#onError(coded(err));
          sourced?.abandoned("not recorded");
        },
      );
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }

  /** Commits what the recorder buffered soon after a record, so a killed server loses little. */
  #flushSoon(): void {
    if (this.#flushTimer || this.#closing) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      this.#recorder.flush().catch((err: unknown) => this.#onError(coded(err)));
    }, FLUSH_AFTER_MS);
  }

  /** Planned and recorded episodes so far. */
  get counts(): { planned: number; recorded: number } {
    return { planned: this.#planned, recorded: this.#recorded };
  }

  /**
   * Ends the run once the episodes that ended are recorded: `completed` when every planned episode
   * has its record, `interrupted` otherwise (an episode abandoned, a store failure). Idempotent.
   */
  close(): Promise<RunEnd> {
    this.#closing ??= (async () => {
      if (this.#flushTimer) clearTimeout(this.#flushTimer);
      this.#flushTimer = undefined;
      while (this.#pending.size > 0) await Promise.all([...this.#pending]);
      const end: RunEnd = this.#recorded === this.#planned ? "completed" : "interrupted";
      try {
        await this.#recorder.close(end);
      } catch (err) {
        this.#onError(coded(err));
        return "interrupted";
      }
      return end;
    })();
    return this.#closing;
  }
}
