import type { Outcome, TrialRecord, TrialSpec } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import type { TrialSummary } from "../core/trial-summary.ts";
import type { Attempt, AttemptEnd, NewAttempt } from "./attempts.ts";
import type { ExperimentLease, LeaseRequest, LeaseResult } from "./leases.ts";
import type { PolicyStore } from "./policies.ts";
import type { RecordVerification } from "./record-verification.ts";

/** A trial's summary row (defined with the other trial types in core: the runner and reports build them too). */
export type { TrialSummary } from "../core/trial-summary.ts";

export const EXPERIMENT_STATUSES = ["planned", "running", "completed", "interrupted", "failed"] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

export interface Experiment {
  id: string;
  /** Schema version of the experiment's trial records. */
  schemaVersion: 1;
  /** ISO timestamp, supplied by the caller. */
  createdAt: string;
  config: JsonObject;
  status: ExperimentStatus;
}

export interface NewExperiment {
  id: string;
  config: JsonObject;
  createdAt: string;
  /** Defaults to `planned`. */
  status?: ExperimentStatus;
}

export interface CreateExperimentOptions {
  /** Return the existing experiment instead of failing with `experiment_exists`. */
  ifNotExists?: boolean;
}

export interface TrialFilter {
  outcome?: Outcome;
  family?: string;
  /** Agent display id (`AgentRef.id`). */
  agent?: string;
}

export interface ExportOptions extends TrialFilter {
  /** Trials read per query (default 64). Memory use is bounded by one page. */
  pageSize?: number;
}

/** Receives one JSON text (no trailing newline); may return a promise to apply backpressure. */
export type LineWriter = (line: string) => void | Promise<void>;

/**
 * Where experiments, their manifests and trial records live. Every method is async and throws
 * ProvingError: `unknown_experiment` (config) for an experiment id the store does not hold,
 * `store_failed` / `store_busy` (infrastructure) when the database fails. It keeps learners' policies
 * too (`PolicyStore`: `savePolicy`, `getPolicy`, `listPolicies`).
 */
export interface Store extends PolicyStore {
  /** Schema version of the open database. */
  readonly schemaVersion: number;
  createExperiment(experiment: NewExperiment, opts?: CreateExperimentOptions): Promise<Experiment>;
  getExperiment(id: string): Promise<Experiment | undefined>;
  /** Oldest first. */
  listExperiments(): Promise<Experiment[]>;
  setExperimentStatus(id: string, status: ExperimentStatus): Promise<void>;
  /**
   * Records the planned trials. Idempotent: specs already in the manifest are left alone when
   * equal and rejected (`manifest_conflict`) when different; new specs are added.
   */
  writeManifest(experimentId: string, specs: readonly TrialSpec[]): Promise<void>;
  /** The planned trials, in index order. */
  getManifest(experimentId: string): Promise<TrialSpec[]>;
  /**
   * Saves a batch in one transaction and returns after it is committed. Idempotent per trial id:
   * a trial saved again replaces the old one wholly (steps and verdict too).
   */
  saveTrials(records: readonly TrialRecord[]): Promise<void>;
  /**
   * Write-once: inserts the record unless the trial already has one (first writer wins), its steps
   * and verdict in the same transaction and only when this insert won. With `attempt`, that attempt
   * is ended in the same transaction (`recorded` when this insert won, `duplicate` otherwise).
   * Returns whether this record was inserted.
   */
  recordTrialOnce(record: TrialRecord, attempt?: { attemptId: string; endedAt: string }): Promise<boolean>;
  /**
   * Opens an attempt (status `running`); an attempt id seen before is left alone. The trial's other
   * attempts still `running` become `abandoned` (the trial was delivered again: their worker is gone).
   */
  startAttempt(attempt: NewAttempt): Promise<void>;
  /** Marks a trial's attempts still `running` as `abandoned` (a poison trial given up); returns how many. */
  abandonAttempts(trialId: string, end: { endedAt: string; error: string }): Promise<number>;
  /** Ends an attempt without a record of its own (`failed`, with the error). */
  endAttempt(attemptId: string, end: AttemptEnd): Promise<void>;
  /** An experiment's attempts (or one trial's), oldest first. */
  listAttempts(experimentId: string, trialId?: string): Promise<Attempt[]>;
  /**
   * Takes the experiment's lease for `req.holder` until `req.nowMs + req.ttlMs`, unless another
   * holder's lease is live (not expired) and `req.force` is not set: then it is refused with that holder.
   */
  acquireLease(experimentId: string, req: LeaseRequest): Promise<LeaseResult>;
  /** Pushes the holder's lease to `expiresAt`; false when another process took it over. */
  renewLease(experimentId: string, holder: string, expiresAt: number): Promise<boolean>;
  /** Drops the holder's lease (a lease another holder took over is left alone). */
  releaseLease(experimentId: string, holder: string): Promise<void>;
  getLease(experimentId: string): Promise<ExperimentLease | undefined>;
  /** Stores the gym description queue workers rebuild for this experiment (replacing an earlier one). */
  setExperimentGym(experimentId: string, gym: JsonObject): Promise<void>;
  /** The experiment's stored gym description; `undefined` when it was never run on a queue. */
  getExperimentGym(experimentId: string): Promise<JsonObject | undefined>;
  /** The record as saved, steps and verdict included; `undefined` when not recorded. */
  getTrial(trialId: string): Promise<TrialRecord | undefined>;
  /** Recorded trials, in manifest (index) order. */
  listTrials(experimentId: string, filter?: TrialFilter): Promise<TrialSummary[]>;
  recordedTrialIds(experimentId: string): Promise<Set<string>>;
  /** Planned trials with no record, in index order. */
  missingTrials(experimentId: string): Promise<TrialSpec[]>;
  /**
   * Writes one JSON line per recorded trial (the full TrialRecord with its steps), in manifest
   * order, reading a page at a time. Returns the number of lines written.
   */
  exportJsonl(experimentId: string, write: LineWriter, opts?: ExportOptions): Promise<number>;
  /**
   * Checks every trial row of the experiment against its MAC (under the store key), its summary
   * columns against its record, its trial against the manifest, and the experiment's seal (written
   * when it completed) for removed rows; with `trialId`, that trial's row only. Never throws for what
   * it finds: see `RecordVerification`.
   */
  verifyRecords(experimentId: string, opts?: { trialId?: string }): Promise<RecordVerification>;
  /** Closes the database. Idempotent; any later call fails with `store_closed`. */
  close(): Promise<void>;
}
