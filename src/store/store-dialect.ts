import { type Kysely, sql } from "kysely";
import { retryBusy } from "./busy-retry.ts";
import type { StoreDatabase } from "./schema.ts";
import type { WriteLock } from "./write-lock.ts";

/**
 * What differs between the databases the store runs on. Query code is kysely's builder and
 * stays the same; only connection setup and how a write transaction starts live here.
 */
export interface StoreDialect {
  readonly name: "sqlite" | "postgres";
  /**
   * Statement that opens a write transaction. SQLite needs `begin immediate` so the write lock is
   * taken up front: a deferred transaction that reads and then writes can fail with SQLITE_BUSY
   * (no retry) when another process committed in between.
   */
  readonly beginWrite: string;
}

export const SQLITE_DIALECT: StoreDialect = { name: "sqlite", beginWrite: "begin immediate" };

export const POSTGRES_DIALECT: StoreDialect = { name: "postgres", beginWrite: "begin" };

/**
 * Runs `fn` in one write transaction on one connection and returns after the commit.
 * Rolls back (and rethrows) when `fn` or the commit fails. With a `lock`, waits for it first.
 * With `busyWaitMs`, a transaction that found another process holding SQLite's write lock is run
 * again with backoff for up to that long (then `store_busy`).
 */
export async function writeTransaction<T>(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  fn: (trx: Kysely<StoreDatabase>) => Promise<T>,
  lock?: WriteLock,
  busyWaitMs?: number,
): Promise<T> {
  const once = () => inTransaction(db, dialect, fn);
  const run = busyWaitMs && busyWaitMs > 0 ? () => retryBusy(once, { waitMs: busyWaitMs }) : once;
  return lock ? lock.run(run) : run();
}

function inTransaction<T>(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  fn: (trx: Kysely<StoreDatabase>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql.raw(dialect.beginWrite).execute(conn);
    try {
      const result = await fn(conn);
      await sql.raw("commit").execute(conn);
      return result;
    } catch (err) {
      await sql
        .raw("rollback")
        .execute(conn)
        .catch(() => undefined);
      throw err;
    }
  });
}
