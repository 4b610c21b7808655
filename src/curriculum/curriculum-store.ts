import type { Kysely } from "kysely";
import { configError } from "../core/errors.ts";
import type { JsonValue } from "../core/json.ts";
import { migrate } from "../store/migrations.ts";
import type { PostgresStoreOptions } from "../store/open-postgres.ts";
import { openSqlite } from "../store/open-sqlite.ts";
import type { StoreDatabase } from "../store/schema.ts";
import {
  POSTGRES_DIALECT,
  SQLITE_DIALECT,
  type StoreDialect,
  writeTransaction,
} from "../store/store-dialect.ts";
import { toStoreError } from "../store/store-errors.ts";
import { isPostgresUrl } from "../store/store-url.ts";
import type { WriteLock } from "../store/write-lock.ts";
import type {
  CurriculumDatabase,
  CurriculumEpisodesTable,
  CurriculumEvaluationsTable,
  CurriculumReviewsTable,
  CurriculumTasksTable,
} from "./store-tables.ts";
import type { StoredVariant, VariantInput } from "./stored-variants.ts";

export interface CurriculumRunRow {
  id: string;
  createdAt: string;
  config: Record<string, unknown>;
  status: string;
}

type Db = Kysely<CurriculumDatabase>;

/** The largest value of an `integer` column (Postgres checks bounds; SQLite does not). */
const MAX_INT32 = 2 ** 31 - 1;

/**
 * Orders rows by text columns in code-unit order. SQL `order by` on text follows the database's
 * collation (SQLite: binary; Postgres: the cluster's locale, which may ignore punctuation and case),
 * so rows whose order feeds sampling are sorted here to read back the same on both dialects.
 */
function byText<T>(...keys: (keyof T)[]): (a: T, b: T) => number {
  return (a, b) => {
    for (const k of keys) {
      const x = String(a[k]);
      const y = String(b[k]);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
}

/**
 * The curriculum's part of the store: runs, episodes, sampler snapshots, evaluations, the task cache
 * and reviews. It lives in the same database as the trials (the `curriculum` migration): on SQLite
 * it writes through the same process-wide write lock as the Store on that file; on Postgres each
 * write is one transaction (`begin` … `commit`) on a pooled connection.
 */
export class CurriculumStore {
  readonly #db: Db;
  readonly #dialect: StoreDialect;
  readonly #lock: WriteLock | undefined;
  readonly #onClose: (() => void) | undefined;
  #closed = false;

  readonly #now: () => Date;

  constructor(
    db: Db,
    dialect: StoreDialect,
    opts: { writeLock?: WriteLock; onClose?: () => void; now?: () => Date } = {},
  ) {
    this.#now = opts.now ?? (() => new Date());
    this.#db = db;
    this.#dialect = dialect;
    this.#lock = opts.writeLock;
    this.#onClose = opts.onClose;
  }

  #write<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return writeTransaction(
      this.#db as unknown as Kysely<StoreDatabase>,
      this.#dialect,
      (trx) => fn(trx as unknown as Db),
      this.#lock,
    );
  }

  async createRun(id: string, config: Record<string, unknown>, createdAt: string): Promise<CurriculumRunRow> {
    const existing = await this.getRun(id);
    if (existing) return existing;
    // another process may create the same run between the read and the write: the first one wins
    await this.#write((trx) =>
      trx
        .insertInto("curriculum_runs")
        .values({ id, created_at: createdAt, config: JSON.stringify(config), status: "running" })
        .onConflict((oc) => oc.column("id").doNothing())
        .execute(),
    );
    return (await this.getRun(id)) ?? { id, createdAt, config, status: "running" };
  }

  async getRun(id: string): Promise<CurriculumRunRow | undefined> {
    const row = await this.#db
      .selectFrom("curriculum_runs")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
    return row
      ? { id: row.id, createdAt: row.created_at, config: JSON.parse(row.config), status: row.status }
      : undefined;
  }

  async listRuns(): Promise<CurriculumRunRow[]> {
    const rows = await this.#db.selectFrom("curriculum_runs").selectAll().execute();
    rows.sort(byText("created_at", "id"));
    return rows.map((r) => ({
      id: r.id,
      createdAt: r.created_at,
      config: JSON.parse(r.config),
      status: r.status,
    }));
  }

  async setStatus(id: string, status: string): Promise<void> {
    await this.#write((trx) =>
      trx.updateTable("curriculum_runs").set({ status }).where("id", "=", id).execute(),
    );
  }

  /** Records one finished episode and, when given, the snapshot after it, in one transaction. */
  async saveEpisode(row: CurriculumEpisodesTable, snapshot?: unknown): Promise<void> {
    await this.#write(async (trx) => {
      await trx
        .deleteFrom("curriculum_episodes")
        .where("run_id", "=", row.run_id)
        .where("idx", "=", row.idx)
        .execute();
      await trx.insertInto("curriculum_episodes").values(row).execute();
      if (snapshot !== undefined) {
        await trx
          .deleteFrom("curriculum_snapshots")
          .where("run_id", "=", row.run_id)
          .where("after_episode", "=", row.idx)
          .execute();
        await trx
          .insertInto("curriculum_snapshots")
          .values({ run_id: row.run_id, after_episode: row.idx, snapshot: JSON.stringify(snapshot) })
          .execute();
      }
    });
  }

  async episodes(runId: string): Promise<CurriculumEpisodesTable[]> {
    const rows = await this.#db
      .selectFrom("curriculum_episodes")
      .selectAll()
      .where("run_id", "=", runId)
      .orderBy("idx")
      .execute();
    return rows.map((r) => ({
      ...r,
      seed: Number(r.seed),
      difficulty: Number(r.difficulty),
      idx: Number(r.idx),
    }));
  }

  /** The latest snapshot at or before `episode` (0 when none). */
  async latestSnapshot(
    runId: string,
    episode: number,
  ): Promise<{ afterEpisode: number; snapshot: unknown } | undefined> {
    let q = this.#db.selectFrom("curriculum_snapshots").selectAll().where("run_id", "=", runId);
    // `after_episode` is a 32-bit integer: Postgres rejects a larger bound (`Number.MAX_SAFE_INTEGER`
    // for "the latest"); every stored episode is at or before it anyway
    if (episode < MAX_INT32) q = q.where("after_episode", "<=", episode);
    const row = await q.orderBy("after_episode", "desc").executeTakeFirst();
    return row ? { afterEpisode: Number(row.after_episode), snapshot: JSON.parse(row.snapshot) } : undefined;
  }

  async saveEvaluation(row: CurriculumEvaluationsTable): Promise<void> {
    await this.#write(async (trx) => {
      await trx
        .deleteFrom("curriculum_evaluations")
        .where("run_id", "=", row.run_id)
        .where("after_episode", "=", row.after_episode)
        .where("split", "=", row.split)
        .execute();
      await trx.insertInto("curriculum_evaluations").values(row).execute();
    });
  }

  async evaluations(runId: string): Promise<CurriculumEvaluationsTable[]> {
    const rows = await this.#db
      .selectFrom("curriculum_evaluations")
      .selectAll()
      .where("run_id", "=", runId)
      .execute();
    return rows
      .map((r) => ({
        ...r,
        after_episode: Number(r.after_episode),
        planned: Number(r.planned),
        passed: Number(r.passed),
      }))
      .sort((a, b) => a.after_episode - b.after_episode || byText<typeof a>("split")(a, b));
  }

  async saveTasks(rows: readonly CurriculumTasksTable[]): Promise<void> {
    if (rows.length === 0) return;
    await this.#write(async (trx) => {
      for (const row of rows) {
        await trx
          .deleteFrom("curriculum_tasks")
          .where("run_id", "=", row.run_id)
          .where("item_id", "=", row.item_id)
          .execute();
        await trx.insertInto("curriculum_tasks").values(row).execute();
      }
    });
  }

  async tasks(runId: string, status?: string): Promise<CurriculumTasksTable[]> {
    let q = this.#db.selectFrom("curriculum_tasks").selectAll().where("run_id", "=", runId);
    if (status) q = q.where("status", "=", status);
    const rows = await q.execute();
    return rows.map((r) => ({ ...r, seed: Number(r.seed) })).sort(byText("created_at", "item_id"));
  }

  async saveReview(row: CurriculumReviewsTable): Promise<void> {
    await this.#write(async (trx) => {
      await trx
        .deleteFrom("curriculum_reviews")
        .where("run_id", "=", row.run_id)
        .where("item_id", "=", row.item_id)
        .execute();
      await trx.insertInto("curriculum_reviews").values(row).execute();
    });
  }

  async reviews(runId: string): Promise<CurriculumReviewsTable[]> {
    const rows = await this.#db
      .selectFrom("curriculum_reviews")
      .selectAll()
      .where("run_id", "=", runId)
      .execute();
    return rows.sort(byText("item_id"));
  }

  /**
   * Offers a harness variant to the dynamic split (the rigger calls this):
   * `addVariant({variant, variantId, provenance, status?}) → StoredVariant`. `variant` is the harness
   * variant spec `{world, layers}`, `variantId` its id (`gym.harness.variantId(variant)`), `provenance`
   * any JSON saying where it came from; `status` is `accepted` (default: sampled by new curriculum runs)
   * or `rejected` (kept for the record, never sampled). Adding the same id again replaces it.
   */
  async addVariant(input: VariantInput): Promise<StoredVariant> {
    const status = input.status ?? "accepted";
    if (status !== "accepted" && status !== "rejected")
      throw configError("bad_variant", `variant ${input.variantId}: status must be accepted or rejected`);
    if (typeof input.variantId !== "string" || input.variantId === "")
      throw configError("bad_variant", "a stored variant needs a variantId");
    const createdAt = input.createdAt ?? this.#now().toISOString();
    await this.#write(async (trx) => {
      await trx.deleteFrom("curriculum_variants").where("variant_id", "=", input.variantId).execute();
      await trx
        .insertInto("curriculum_variants")
        .values({
          variant_id: input.variantId,
          variant: JSON.stringify(input.variant),
          provenance: JSON.stringify(input.provenance ?? null),
          status,
          created_at: createdAt,
        })
        .execute();
    });
    return {
      variantId: input.variantId,
      variant: input.variant,
      provenance: input.provenance ?? null,
      status,
      createdAt,
    };
  }

  /** The stored variants in the order they were added (`listVariants({status: "accepted"})` for the sampled ones). */
  async listVariants(opts: { status?: "accepted" | "rejected" } = {}): Promise<StoredVariant[]> {
    let q = this.#db.selectFrom("curriculum_variants").selectAll();
    if (opts.status) q = q.where("status", "=", opts.status);
    const rows = await q.execute();
    rows.sort(byText("created_at", "variant_id"));
    return rows.map((r) => ({
      variantId: r.variant_id,
      variant: JSON.parse(r.variant) as JsonValue,
      provenance: JSON.parse(r.provenance) as JsonValue,
      status: r.status as "accepted" | "rejected",
      createdAt: r.created_at,
    }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#db.destroy();
    this.#onClose?.();
  }
}

/** A curriculum run that must exist; `unknown_curriculum_run` otherwise. */
export async function requireRun(store: CurriculumStore, id: string): Promise<CurriculumRunRow> {
  const run = await store.getRun(id);
  if (!run)
    throw configError(
      "unknown_curriculum_run",
      `no curriculum run ${id} in the store (start one with \`proving curriculum run --id ${id}\`)`,
    );
  return run;
}

export interface CurriculumStoreOptions extends PostgresStoreOptions {
  /** SQLite: how long a statement waits for another process's write lock (default 5000 ms). */
  busyTimeoutMs?: number;
}

/**
 * Opens the curriculum tables of the store at `location` (migrating it like `openStore` does): a
 * SQLite file path, or a `postgres://` / `postgresql://` URL (the same `--store` value every command
 * takes; `pg` loads only then). Use beside a Store on the same location: on SQLite, writes share its
 * process-wide write lock; on Postgres, each write is its own transaction.
 */
export async function openCurriculumStore(
  location: string,
  opts: CurriculumStoreOptions = {},
): Promise<CurriculumStore> {
  if (isPostgresUrl(location)) return openPostgresCurriculumStore(location, opts);
  // WAL + NORMAL: a commit is in the WAL (the OS's page cache) when it returns, so it survives the
  // process being killed (kill -9: the resume guarantee); only a power loss or OS crash can drop the
  // last commits, and then a resume re-runs those episodes (same seed and history: same draws). FULL
  // fsyncs every commit, one per episode — nearly all of the store's per-episode cost (BENCHMARKS.md).
  const { db, writeLock, release } = openSqlite<CurriculumDatabase>(location, {
    busyTryMs: opts.busyTimeoutMs ?? 5000,
    synchronous: "NORMAL",
  });
  try {
    await migrate(db as unknown as Kysely<StoreDatabase>, SQLITE_DIALECT, {
      ...(writeLock ? { writeLock } : {}),
    });
  } catch (err) {
    await db.destroy().catch(() => undefined);
    release();
    throw err;
  }
  return new CurriculumStore(db, SQLITE_DIALECT, {
    ...(writeLock ? { writeLock, onClose: release } : {}),
  });
}

async function openPostgresCurriculumStore(
  url: string,
  opts: PostgresStoreOptions,
): Promise<CurriculumStore> {
  const { connectPostgres } = await import("../store/open-postgres.ts");
  const db = await connectPostgres<CurriculumDatabase>(url, opts);
  try {
    await migrate(db as unknown as Kysely<StoreDatabase>, POSTGRES_DIALECT);
  } catch (err) {
    await db.destroy().catch(() => undefined);
    throw toStoreError("migrate", err);
  }
  return new CurriculumStore(db, POSTGRES_DIALECT);
}
