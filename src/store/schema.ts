/**
 * The store's tables, as kysely sees them. Column names are snake_case; JSON columns are TEXT
 * (the same on SQLite and Postgres); booleans are 0/1 integers so both dialects read them alike.
 */

export interface StoreMigrationsTable {
  version: number;
  name: string;
  applied_at: string;
}

export interface ExperimentsTable {
  id: string;
  /** Schema version of the experiment's records (TrialRecord.schemaVersion). */
  schema_version: number;
  created_at: string;
  /** JSON object. */
  config: string;
  status: string;
}

/** The planned trials of an experiment, written before any trial runs. */
export interface ManifestTable {
  experiment_id: string;
  trial_id: string;
  idx: number;
  /** JSON TrialSpec. */
  spec: string;
  world: string;
  family: string;
  difficulty: number;
  agent: string;
  seed: number;
  repeat: number;
  variant_id: string | null;
}

/** One row per recorded trial; the spec columns are copied so queries need no join. */
export interface TrialsTable {
  trial_id: string;
  experiment_id: string;
  idx: number;
  world: string;
  family: string;
  difficulty: number;
  agent: string;
  seed: number;
  repeat: number;
  variant_id: string | null;
  outcome: string;
  reason: string;
  /** 1, 0, or null when there is no verdict. */
  passed: number | null;
  score: number | null;
  /** JSON array of violation codes. */
  violations: string;
  steps: number;
  virtual_seconds: number;
  wall_ms: number;
  tokens_in: number;
  tokens_out: number;
  cost_usd: number;
  trajectory_hash: string;
  started_at: string;
  finished_at: string;
  /** JSON TrialRecord without `steps` and `verdict` (they live in their own tables). */
  record: string;
  /** HMAC-SHA256 of the record, steps and verdict under the store key (record-mac.ts); null: unsigned. */
  mac?: string | null;
}

export interface StepsTable {
  trial_id: string;
  idx: number;
  /** JSON StepRecord. */
  step: string;
}

export interface VerdictsTable {
  trial_id: string;
  /** JSON Verdict. */
  verdict: string;
}

/** One execution of a trial by a queue worker (the audit trail; the record itself is in `trials`). */
export interface AttemptsTable {
  attempt_id: string;
  trial_id: string;
  experiment_id: string;
  /** 1 for the first delivery of the trial's job, counting redeliveries. */
  attempt: number;
  worker: string;
  started_at: string;
  ended_at: string | null;
  /** running, recorded (its record won), duplicate (another attempt's record was first), failed. */
  status: string;
  error: string | null;
}

/** The gym an experiment's queue workers rebuild (`gym.describe()` as JSON). */
export interface ExperimentGymsTable {
  experiment_id: string;
  gym: string;
}

/** Who holds an experiment now (run, resume or a queue coordinator following it), with a heartbeat. */
export interface ExperimentLeasesTable {
  experiment_id: string;
  holder: string;
  acquired_at: string;
  /** Epoch ms (bigint: pg returns it as a string). */
  expires_at: number | string;
}

/** A learner's policy, keyed by its content hash (see `StoredPolicy` in policies.ts). */
export interface PoliciesTable {
  hash: string;
  /** `learner.q@1`, `learner.pg@1`. */
  learner: string;
  version: number;
  /** JSON TrainingHistory. */
  history: string;
  experiment_id: string | null;
  /** run | checkpoint@N | import */
  source: string;
  created_at: string;
  /** JSON: the whole policy. */
  policy: string;
}

/** A completed experiment's seal: the trials recorded then, so a removed one is named. */
export interface ExperimentSealsTable {
  experiment_id: string;
  /** JSON array of trial ids, in index order. */
  trial_ids: string;
  /** `sealMac` over the experiment id and those ids. */
  mac: string;
  sealed_at: string;
}

/** The key the store's records are signed with, by id (`storeKeyId`); the key itself is never stored. */
export interface StoreKeysTable {
  key_id: string;
  created_at: string;
}

export interface StoreDatabase {
  store_migrations: StoreMigrationsTable;
  experiments: ExperimentsTable;
  manifest: ManifestTable;
  trials: TrialsTable;
  steps: StepsTable;
  verdicts: VerdictsTable;
  attempts: AttemptsTable;
  experiment_gyms: ExperimentGymsTable;
  experiment_leases: ExperimentLeasesTable;
  policies: PoliciesTable;
  experiment_seals: ExperimentSealsTable;
  store_keys: StoreKeysTable;
}
