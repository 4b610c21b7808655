import type { TrialRecord, TrialSpec } from "../core/contracts.ts";
import type { TrialSummary } from "../core/trial-summary.ts";
import type { ExperimentEntry, TrialRecorder } from "../runner/recorder.ts";
import type { Store } from "../store/store.ts";

export interface AttemptRecorderOptions {
  attemptId: string;
  attempt: number;
  worker: string;
  now: () => Date;
}

/**
 * How a queue worker records one delivery of a trial that the coordinator planned: `open` joins the
 * experiment (its plan is the coordinator's and is not written again) and, unless the trial is
 * recorded already, opens this delivery's attempt; `record` is write-once in the store
 * (`recordTrialOnce`: the first record of a trial wins, a later attempt's is dropped and its attempt
 * marked `duplicate`); `close` leaves the experiment's status to the coordinator.
 */
export class AttemptRecorder implements TrialRecorder {
  readonly #store: Store;
  readonly #opts: AttemptRecorderOptions;
  #experimentId = "";

  constructor(store: Store, opts: AttemptRecorderOptions) {
    this.#store = store;
    this.#opts = opts;
  }

  async open(experiment: ExperimentEntry, manifest: readonly TrialSpec[]): Promise<ReadonlySet<string>> {
    this.#experimentId = experiment.id;
    const recorded = await this.#store.recordedTrialIds(experiment.id);
    for (const spec of manifest) {
      if (recorded.has(spec.id)) continue;
      await this.#store.startAttempt({
        attemptId: this.#opts.attemptId,
        trialId: spec.id,
        experimentId: spec.experimentId,
        attempt: this.#opts.attempt,
        worker: this.#opts.worker,
        startedAt: this.#opts.now().toISOString(),
      });
    }
    return recorded;
  }

  record(record: TrialRecord): Promise<boolean> {
    return this.#store.recordTrialOnce(record, {
      attemptId: this.#opts.attemptId,
      endedAt: this.#opts.now().toISOString(),
    });
  }

  async flush(): Promise<void> {}

  read(trialId: string): Promise<TrialRecord | undefined> {
    return this.#store.getTrial(trialId);
  }

  summaries(): Promise<TrialSummary[]> {
    return this.#store.listTrials(this.#experimentId);
  }

  async close(): Promise<void> {}
}
