import { type Kysely, sql } from "kysely";
import { ProvingError } from "../core/errors.ts";
import type { StoreDatabase } from "./schema.ts";
import { type StoreDialect, writeTransaction } from "./store-dialect.ts";
import type { WriteLock } from "./write-lock.ts";

/** One schema change. Migrations only ever append; a shipped migration is never edited. */
export interface StoreMigration {
  version: number;
  name: string;
  up(db: Kysely<StoreDatabase>): Promise<void>;
}

const initial: StoreMigration = {
  version: 1,
  name: "initial",
  async up(db) {
    await db.schema
      .createTable("experiments")
      .ifNotExists()
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("schema_version", "integer", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("config", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("manifest")
      .ifNotExists()
      .addColumn("trial_id", "text", (c) => c.primaryKey())
      .addColumn("experiment_id", "text", (c) => c.notNull())
      .addColumn("idx", "integer", (c) => c.notNull())
      .addColumn("spec", "text", (c) => c.notNull())
      .addColumn("world", "text", (c) => c.notNull())
      .addColumn("family", "text", (c) => c.notNull())
      .addColumn("difficulty", "double precision", (c) => c.notNull())
      .addColumn("agent", "text", (c) => c.notNull())
      .addColumn("seed", "bigint", (c) => c.notNull())
      .addColumn("repeat", "integer", (c) => c.notNull())
      .addColumn("variant_id", "text")
      .execute();
    await db.schema
      .createIndex("manifest_experiment_idx")
      .ifNotExists()
      .unique()
      .on("manifest")
      .columns(["experiment_id", "idx"])
      .execute();

    await db.schema
      .createTable("trials")
      .ifNotExists()
      .addColumn("trial_id", "text", (c) => c.primaryKey())
      .addColumn("experiment_id", "text", (c) => c.notNull())
      .addColumn("idx", "integer", (c) => c.notNull())
      .addColumn("world", "text", (c) => c.notNull())
      .addColumn("family", "text", (c) => c.notNull())
      .addColumn("difficulty", "double precision", (c) => c.notNull())
      .addColumn("agent", "text", (c) => c.notNull())
      .addColumn("seed", "bigint", (c) => c.notNull())
      .addColumn("repeat", "integer", (c) => c.notNull())
      .addColumn("variant_id", "text")
      .addColumn("outcome", "text", (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("passed", "integer")
      .addColumn("score", "double precision")
      .addColumn("violations", "text", (c) => c.notNull())
      .addColumn("steps", "integer", (c) => c.notNull())
      .addColumn("virtual_seconds", "double precision", (c) => c.notNull())
      .addColumn("wall_ms", "double precision", (c) => c.notNull())
      .addColumn("tokens_in", "bigint", (c) => c.notNull())
      .addColumn("tokens_out", "bigint", (c) => c.notNull())
      .addColumn("cost_usd", "double precision", (c) => c.notNull())
      .addColumn("trajectory_hash", "text", (c) => c.notNull())
      .addColumn("started_at", "text", (c) => c.notNull())
      .addColumn("finished_at", "text", (c) => c.notNull())
      .addColumn("record", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("trials_experiment_idx")
      .ifNotExists()
      .on("trials")
      .columns(["experiment_id", "idx", "trial_id"])
      .execute();
    await db.schema
      .createIndex("trials_experiment_outcome")
      .ifNotExists()
      .on("trials")
      .columns(["experiment_id", "outcome"])
      .execute();

    await db.schema
      .createTable("steps")
      .ifNotExists()
      .addColumn("trial_id", "text", (c) => c.notNull())
      .addColumn("idx", "integer", (c) => c.notNull())
      .addColumn("step", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("steps_pk", ["trial_id", "idx"])
      .execute();

    await db.schema
      .createTable("verdicts")
      .ifNotExists()
      .addColumn("trial_id", "text", (c) => c.primaryKey())
      .addColumn("verdict", "text", (c) => c.notNull())
      .execute();
  },
};

/** The audit trail of trial executions on queue workers: one row per attempt (worker, start, end, error). */
const attempts: StoreMigration = {
  version: 2,
  name: "attempts",
  async up(db) {
    await db.schema
      .createTable("attempts")
      .ifNotExists()
      .addColumn("attempt_id", "text", (c) => c.primaryKey())
      .addColumn("trial_id", "text", (c) => c.notNull())
      .addColumn("experiment_id", "text", (c) => c.notNull())
      .addColumn("attempt", "integer", (c) => c.notNull())
      .addColumn("worker", "text", (c) => c.notNull())
      .addColumn("started_at", "text", (c) => c.notNull())
      .addColumn("ended_at", "text")
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("error", "text")
      .execute();
    await db.schema
      .createIndex("attempts_experiment_trial")
      .ifNotExists()
      .on("attempts")
      .columns(["experiment_id", "trial_id"])
      .execute();
  },
};

/**
 * The adaptive curriculum's tables (src/curriculum): its runs, every episode it sampled (key, split,
 * seed, outcome, the task's generation record), sampler snapshots, regression and held-out
 * evaluations, the pre-generated task cache and the human review queue.
 */
const curriculum: StoreMigration = {
  version: 3,
  name: "curriculum",
  async up(db) {
    await db.schema
      .createTable("curriculum_runs")
      .ifNotExists()
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("config", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("curriculum_episodes")
      .ifNotExists()
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("idx", "integer", (c) => c.notNull())
      .addColumn("task_key", "text", (c) => c.notNull())
      .addColumn("world", "text", (c) => c.notNull())
      .addColumn("variant_id", "text")
      .addColumn("family", "text", (c) => c.notNull())
      .addColumn("difficulty", "double precision", (c) => c.notNull())
      .addColumn("split", "text", (c) => c.notNull())
      .addColumn("seed", "bigint", (c) => c.notNull())
      .addColumn("trial_id", "text", (c) => c.notNull())
      .addColumn("outcome", "text", (c) => c.notNull())
      .addColumn("passed", "integer", (c) => c.notNull())
      .addColumn("process", "text", (c) => c.notNull())
      .addColumn("generation", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("curriculum_episodes_pk", ["run_id", "idx"])
      .execute();
    await db.schema
      .createTable("curriculum_snapshots")
      .ifNotExists()
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("after_episode", "integer", (c) => c.notNull())
      .addColumn("snapshot", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("curriculum_snapshots_pk", ["run_id", "after_episode"])
      .execute();
    await db.schema
      .createTable("curriculum_evaluations")
      .ifNotExists()
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("after_episode", "integer", (c) => c.notNull())
      .addColumn("split", "text", (c) => c.notNull())
      .addColumn("planned", "integer", (c) => c.notNull())
      .addColumn("passed", "integer", (c) => c.notNull())
      .addColumn("manifest_hash", "text", (c) => c.notNull())
      .addColumn("tasks", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("curriculum_evaluations_pk", ["run_id", "after_episode", "split"])
      .execute();
    await db.schema
      .createTable("curriculum_tasks")
      .ifNotExists()
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("item_id", "text", (c) => c.notNull())
      .addColumn("task_key", "text", (c) => c.notNull())
      .addColumn("seed", "bigint", (c) => c.notNull())
      .addColumn("content_hash", "text")
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("task", "text")
      .addColumn("known_good", "text")
      .addColumn("created_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("curriculum_tasks_pk", ["run_id", "item_id"])
      .execute();
    await db.schema
      .createTable("curriculum_reviews")
      .ifNotExists()
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("item_id", "text", (c) => c.notNull())
      .addColumn("decision", "text", (c) => c.notNull())
      .addColumn("note", "text", (c) => c.notNull())
      .addColumn("reviewed_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("curriculum_reviews_pk", ["run_id", "item_id"])
      .execute();
  },
};

/** The gym description of an experiment run on queue workers (they rebuild the gym from it). */
const experimentGyms: StoreMigration = {
  version: 4,
  name: "experiment-gyms",
  async up(db) {
    await db.schema
      .createTable("experiment_gyms")
      .ifNotExists()
      .addColumn("experiment_id", "text", (c) => c.primaryKey())
      .addColumn("gym", "text", (c) => c.notNull())
      .execute();
  },
};

/** Harness variants offered to the curriculum's dynamic split (the rigger's output), with provenance. */
const curriculumVariants: StoreMigration = {
  version: 5,
  name: "curriculum-variants",
  async up(db) {
    await db.schema
      .createTable("curriculum_variants")
      .ifNotExists()
      .addColumn("variant_id", "text", (c) => c.primaryKey())
      .addColumn("variant", "text", (c) => c.notNull())
      .addColumn("provenance", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
  },
};

/** The experiment lease: one live process runs, resumes or follows an experiment at a time. */
const experimentLeases: StoreMigration = {
  version: 6,
  name: "experiment-leases",
  async up(db) {
    await db.schema
      .createTable("experiment_leases")
      .ifNotExists()
      .addColumn("experiment_id", "text", (c) => c.primaryKey())
      .addColumn("holder", "text", (c) => c.notNull())
      .addColumn("acquired_at", "text", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
  },
};

/** Learners' policies, keyed by content hash, with their training history and provenance (issue 25). */
const policies: StoreMigration = {
  version: 7,
  name: "policies",
  async up(db) {
    await db.schema
      .createTable("policies")
      .ifNotExists()
      .addColumn("hash", "text", (c) => c.primaryKey())
      .addColumn("learner", "text", (c) => c.notNull())
      .addColumn("version", "integer", (c) => c.notNull())
      .addColumn("history", "text", (c) => c.notNull())
      .addColumn("experiment_id", "text")
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("policy", "text", (c) => c.notNull())
      .execute();
  },
};

/**
 * Tamper-evident records (issue 27): each trial row's HMAC under the store key (kept outside the
 * store), the seal of a completed experiment (its recorded trial ids, with their own HMAC) and the
 * id of the key the store was signed with.
 */
const recordIntegrity: StoreMigration = {
  version: 8,
  name: "record-integrity",
  async up(db) {
    await db.schema.alterTable("trials").addColumn("mac", "text").execute();
    await db.schema
      .createTable("experiment_seals")
      .ifNotExists()
      .addColumn("experiment_id", "text", (c) => c.primaryKey())
      .addColumn("trial_ids", "text", (c) => c.notNull())
      .addColumn("mac", "text", (c) => c.notNull())
      .addColumn("sealed_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("store_keys")
      .ifNotExists()
      .addColumn("key_id", "text", (c) => c.primaryKey())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
  },
};

/** Every migration, in order. Append only: add a new one at the end with the next version. */
export const MIGRATIONS: readonly StoreMigration[] = [
  initial,
  attempts,
  curriculum,
  experimentGyms,
  curriculumVariants,
  experimentLeases,
  policies,
  recordIntegrity,
];

/** Postgres advisory lock key held while migrating (any fixed bigint; "prov" in ASCII). */
const MIGRATION_LOCK = 0x70726f76;

/** The schema version this code writes and reads. */
export const STORE_SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * Brings the database to STORE_SCHEMA_VERSION in one write transaction (so two processes opening
 * the same new file do not race) and returns the version. A database newer than this code is an
 * error rather than something to write into blindly.
 */
export async function migrate(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  opts: { writeLock?: WriteLock; now?: () => string; busyWaitMs?: number } = {},
): Promise<number> {
  const now = opts.now ?? (() => new Date().toISOString());
  return writeTransaction(
    db,
    dialect,
    async (trx) => {
      // Postgres: processes opening one database at once (a coordinator and its workers) migrate
      // one after the other; the lock ends with the transaction. SQLite's `begin immediate` already is.
      if (dialect.name === "postgres")
        await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
      await trx.schema
        .createTable("store_migrations")
        .ifNotExists()
        .addColumn("version", "integer", (c) => c.primaryKey())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("applied_at", "text", (c) => c.notNull())
        .execute();
      // Applied versions, not only the highest: a migration added by a parallel change with a lower
      // version than one already applied still runs (each migration applies once, in version order).
      const rows = await trx.selectFrom("store_migrations").select("version").execute();
      const applied = new Set(rows.map((r) => Number(r.version)));
      const current = Math.max(0, ...applied);
      if (current > STORE_SCHEMA_VERSION) {
        throw new ProvingError(
          "store_schema_too_new",
          `store schema version ${current} is newer than this build understands (${STORE_SCHEMA_VERSION}); upgrade proving-ground`,
          { details: { current, supported: STORE_SCHEMA_VERSION } },
        );
      }
      for (const migration of MIGRATIONS) {
        if (applied.has(migration.version)) continue;
        await migration.up(trx);
        await trx
          .insertInto("store_migrations")
          .values({ version: migration.version, name: migration.name, applied_at: now() })
          .execute();
      }
      return STORE_SCHEMA_VERSION;
    },
    opts.writeLock,
    opts.busyWaitMs,
  );
}
