import type { TrialRecord, TrialSpec } from "../core/contracts.ts";
import { summarizeTrial, type TrialSummary } from "../core/trial-summary.ts";
import type { ExperimentEntry, RunEnd, TrialRecorder } from "./recorder.ts";

/**
 * Records in memory (a run without a store): summaries are kept for the run's rows, whole records
 * only when asked (`keepRecords`), so a large run holds one summary per trial, not its steps.
 */
export class MemoryRecorder implements TrialRecorder {
  readonly #summaries = new Map<string, TrialSummary>();
  readonly #records = new Map<string, TrialRecord>();
  readonly #keepRecords: boolean;
  #experiment: ExperimentEntry | undefined;
  #end: RunEnd | undefined;

  constructor(opts: { keepRecords?: boolean } = {}) {
    this.#keepRecords = opts.keepRecords ?? false;
  }

  /** The experiment as opened, and how its run ended (for tests and callers that keep results in memory). */
  get experiment(): ExperimentEntry | undefined {
    return this.#experiment;
  }
  get end(): RunEnd | undefined {
    return this.#end;
  }

  async open(experiment: ExperimentEntry, _manifest: readonly TrialSpec[]): Promise<ReadonlySet<string>> {
    this.#experiment = experiment;
    return new Set(this.#summaries.keys());
  }

  async record(record: TrialRecord): Promise<boolean> {
    const id = record.spec.id;
    if (this.#summaries.has(id)) return false;
    this.#summaries.set(id, summarizeTrial(record));
    if (this.#keepRecords) this.#records.set(id, record);
    return true;
  }

  /** Nothing to keep: a run in memory counts its plan from its records. */
  async plan(_specs: readonly TrialSpec[]): Promise<void> {}

  async flush(): Promise<void> {}

  async read(trialId: string): Promise<TrialRecord | undefined> {
    return this.#records.get(trialId);
  }

  async summaries(): Promise<Iterable<TrialSummary>> {
    return this.#summaries.values();
  }

  async close(end: RunEnd): Promise<void> {
    this.#end = end;
  }
}
