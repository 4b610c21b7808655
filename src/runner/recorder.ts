import type { TrialRecord, TrialSpec } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import type { TrialSummary } from "../core/trial-summary.ts";

/** An experiment as it is recorded: its id, its definition (`config.id` is the id), its creation time. */
export interface ExperimentEntry {
  id: string;
  config: JsonObject;
  /** ISO timestamp. */
  createdAt: string;
}

/**
 * How a run of an experiment ended: every planned trial recorded (`completed`), stopped early or
 * failed (`interrupted`), or handed to workers elsewhere that go on recording (`handed_off`: the
 * status is left `running`; whoever sees the last record marks it completed).
 */
export type RunEnd = "completed" | "interrupted" | "handed_off";

/**
 * The runner's recording port: the one way a trial reaches a record. Every path that runs trials
 * (`run`, `resume`, the curriculum, the rigger, learn, `proving mcp`, queue workers) records through
 * the executor, and the executor through this port; `proving serve` records its episodes through it.
 *
 * - `open` is called first: the experiment and its plan are written before any trial runs, so every
 *   planned trial counts (`missing` until recorded) should the process die. It returns the ids of the
 *   planned trials already recorded (what the run skips).
 * - `record` is write-once: the first record of a trial wins; it resolves `false` when the trial had
 *   one already. A recorder may buffer; `close` (or `flush`) commits.
 * - `close` commits what is buffered and ends the run with a status (`interrupted` when it stopped
 *   early or failed). It is called once, also after a failure.
 */
export interface TrialRecorder {
  open(experiment: ExperimentEntry, manifest: readonly TrialSpec[]): Promise<ReadonlySet<string>>;
  record(record: TrialRecord): Promise<boolean>;
  /**
   * Adds trials to the open run's plan, written before it resolves (an open-ended run plans each
   * trial as it starts: `proving serve` plans an episode at its reset, so it counts, `missing` until
   * recorded, from then on). Specs already planned are left alone when equal.
   */
  plan?(specs: readonly TrialSpec[]): Promise<void>;
  /** Commits what is buffered (rejects if the commit fails; nothing is dropped). */
  flush(): Promise<void>;
  /** A recorded trial, read back (recorded by this run or an earlier one). */
  read(trialId: string): Promise<TrialRecord | undefined>;
  /** The experiment's recorded trials, as summaries (for the run's result rows). */
  summaries(): Promise<Iterable<TrialSummary>>;
  close(end: RunEnd): Promise<void>;
  /** True once the run must start nothing more (another process took the experiment over). */
  readonly lost?: boolean;
}
