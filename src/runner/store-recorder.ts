import type { TrialRecord, TrialSpec } from "../core/contracts.ts";
import { internalError } from "../core/errors.ts";
import type { TrialSummary } from "../core/trial-summary.ts";
import type { HeldLease, HoldLeaseOptions } from "../store/experiment-lease.ts";
import type { Store } from "../store/store.ts";
import { TrialWriter } from "../store/trial-writer.ts";
import { openExperiment, openLeasedExperiment } from "./open-experiment.ts";
import type { ExperimentEntry, RunEnd, TrialRecorder } from "./recorder.ts";

export interface StoreRecorderOptions {
  /**
   * Hold the experiment's lease while the run lasts (`experiment_live` if another live process runs
   * or resumes it). Without it, the experiment is opened unleased (a one-trial or curriculum run).
   */
  lease?: HoldLeaseOptions;
  /** Records per save transaction (default 64). */
  batchSize?: number;
  /** Commit buffered records at least this often while the run goes on (default 50 ms; 0: every record). */
  flushEveryMs?: number;
  /**
   * The caller goes on planning into this experiment in later runs (a curriculum's episodes): a
   * `completed` close leaves it `running`; the caller sets its final status. An interrupted close still
   * marks it.
   */
  keepRunning?: boolean;
}

/**
 * Records a run in a `Store`: the experiment and its manifest on `open` (under the lease when asked),
 * each record through a batching `TrialWriter`, the status on `close`. Write-once within the run: a
 * trial recorded before it opened, or earlier in it, is not written again.
 */
export class StoreRecorder implements TrialRecorder {
  readonly #store: Store;
  readonly #opts: StoreRecorderOptions;
  readonly #writer: TrialWriter;
  #experimentId: string | undefined;
  #recorded = new Set<string>();
  #lease: HeldLease | undefined;
  #lastFlush = 0;

  constructor(store: Store, opts: StoreRecorderOptions = {}) {
    this.#store = store;
    this.#opts = opts;
    this.#writer = new TrialWriter(store, { batchSize: opts.batchSize ?? 64 });
  }

  get lost(): boolean {
    return this.#lease?.lost ?? false;
  }

  async open(experiment: ExperimentEntry, manifest: readonly TrialSpec[]): Promise<ReadonlySet<string>> {
    this.#experimentId = experiment.id;
    if (this.#opts.lease) {
      const opened = await openLeasedExperiment(this.#store, experiment, manifest, this.#opts.lease);
      this.#recorded = opened.recorded;
      this.#lease = opened.lease;
    } else {
      this.#recorded = await openExperiment(this.#store, experiment, manifest);
    }
    this.#lastFlush = Date.now();
    return new Set(this.#recorded);
  }

  async record(record: TrialRecord): Promise<boolean> {
    const id = record.spec.id;
    if (this.#recorded.has(id)) return false;
    this.#recorded.add(id);
    this.#writer.add(record);
    const every = this.#opts.flushEveryMs ?? 50;
    if (Date.now() - this.#lastFlush >= every) {
      this.#lastFlush = Date.now();
      await this.#writer.flush();
    }
    return true;
  }

  plan(specs: readonly TrialSpec[]): Promise<void> {
    return this.#store.writeManifest(this.#id(), specs);
  }

  flush(): Promise<void> {
    return this.#writer.flush();
  }

  read(trialId: string): Promise<TrialRecord | undefined> {
    return this.#store.getTrial(trialId);
  }

  summaries(): Promise<TrialSummary[]> {
    return this.#store.listTrials(this.#id());
  }

  async close(end: RunEnd): Promise<void> {
    let failed: unknown;
    let status = end === "completed" && this.#opts.keepRunning ? "handed_off" : end;
    try {
      await this.#writer.flush();
    } catch (err) {
      // what was not committed stays missing and a resume picks it up
      failed = err;
      status = "interrupted";
    }
    try {
      if (this.#experimentId !== undefined && status !== "handed_off")
        await this.#store.setExperimentStatus(this.#experimentId, status);
    } finally {
      await this.#lease?.release();
    }
    if (failed !== undefined) throw failed;
  }

  #id(): string {
    if (this.#experimentId === undefined)
      throw internalError("recorder_not_open", "the store recorder was read before it was opened");
    return this.#experimentId;
  }
}
