export {
  ATTEMPT_STATUSES,
  type Attempt,
  type AttemptEnd,
  type AttemptStatus,
  type NewAttempt,
} from "./attempts.ts";
export { DEFAULT_BUSY_WAIT_MS, isBusyError, retryBusy } from "./busy-retry.ts";
export { createStore } from "./create-store.ts";
export {
  DEFAULT_LEASE_MS,
  type HeldLease,
  type HoldLeaseOptions,
  holdExperimentLease,
} from "./experiment-lease.ts";
export { KyselyStore, type KyselyStoreOptions } from "./kysely-store.ts";
export type { ExperimentLease, LeaseRequest, LeaseResult } from "./leases.ts";
export { MIGRATIONS, migrate, STORE_SCHEMA_VERSION, type StoreMigration } from "./migrations.ts";
export { connectPostgres, openPostgresStore, type PostgresStoreOptions } from "./open-postgres.ts";
export { DEFAULT_STORE_PATH, type OpenStoreOptions, openStore } from "./open-store.ts";
export {
  MIN_POLICY_PREFIX,
  type PolicyStore,
  type PolicySummary,
  type StoredPolicy,
} from "./policies.ts";
export type { RecordProblem, RecordVerification } from "./record-verification.ts";
export type { StoreDatabase } from "./schema.ts";
export {
  type CreateExperimentOptions,
  EXPERIMENT_STATUSES,
  type Experiment,
  type ExperimentStatus,
  type ExportOptions,
  type LineWriter,
  type NewExperiment,
  type Store,
  type TrialFilter,
  type TrialSummary,
} from "./store.ts";
export { POSTGRES_DIALECT, SQLITE_DIALECT, type StoreDialect } from "./store-dialect.ts";
export { parseStoreKey, readKeyFile, STORE_KEY_ENV, storeKeyOptions, storeKeyPath } from "./store-key.ts";
export { isPostgresUrl, redactStoreUrl } from "./store-url.ts";
export { TrialWriter, type TrialWriterOptions } from "./trial-writer.ts";
export { acquireWriteLock, releaseWriteLock, WriteLock } from "./write-lock.ts";
