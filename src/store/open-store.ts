import { mkdirSync, realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { errorMessage, ProvingError } from "../core/errors.ts";
import { DEFAULT_BUSY_WAIT_MS } from "./busy-retry.ts";
import { KyselyStore, type KyselyStoreOptions } from "./kysely-store.ts";
import { migrate } from "./migrations.ts";
import type { PostgresStoreOptions } from "./open-postgres.ts";
import type { StoreDatabase } from "./schema.ts";
import type { Store } from "./store.ts";
import { SQLITE_DIALECT, type StoreDialect } from "./store-dialect.ts";
import { toStoreError } from "./store-errors.ts";
import { isPostgresUrl } from "./store-url.ts";
import { acquireWriteLock, releaseWriteLock } from "./write-lock.ts";

/** Where the CLI keeps its store unless told otherwise (relative to the working directory). */
export const DEFAULT_STORE_PATH = ".proving/proving.db";

export interface OpenStoreOptions extends PostgresStoreOptions {
  /**
   * SQLite: how long a write waits in all for another process's write lock before failing with
   * `store_busy` (default 60000 ms). It is retried with backoff; each try waits at most
   * `BUSY_TRY_MS` inside SQLite, so the event loop is never blocked for long.
   */
  busyTimeoutMs?: number;
}

/** How long one statement waits inside SQLite's busy handler (synchronously) before the store retries. */
export const BUSY_TRY_MS = 200;

/**
 * Opens (creating when needed, parent directories included) the SQLite store at `path` and
 * brings its schema up to date. WAL mode, so readers never block the writer; `synchronous=FULL`,
 * so a committed transaction survives a crash. `:memory:` gives a throwaway store.
 * A `postgres://` (or `postgresql://`) URL opens the Postgres store instead (`openPostgresStore`).
 */
export async function openStore(path: string, opts: OpenStoreOptions = {}): Promise<Store> {
  if (isPostgresUrl(path)) {
    const { openPostgresStore } = await import("./open-postgres.ts");
    return openPostgresStore(path, opts);
  }
  const busyTimeoutMs = Math.max(0, opts.busyTimeoutMs ?? DEFAULT_BUSY_WAIT_MS);
  const perTry = Math.floor(Math.min(busyTimeoutMs, BUSY_TRY_MS));
  let database: Database.Database | undefined;
  try {
    if (path !== ":memory:" && path !== "") mkdirSync(dirname(resolve(path)), { recursive: true });
    database = new Database(path, { timeout: perTry });
    database.pragma(`busy_timeout = ${perTry}`);
    database.pragma("journal_mode = WAL");
    database.pragma("synchronous = FULL");
  } catch (err) {
    database?.close();
    throw new ProvingError("store_open_failed", `cannot open store ${path}: ${errorMessage(err)}`, {
      cause: err,
      details: { path },
    });
  }
  const db = new Kysely<StoreDatabase>({ dialect: new SqliteDialect({ database }) });
  if (database.memory) return createStore(db, SQLITE_DIALECT);
  // Stores on the same file in this process take turns writing (see WriteLock).
  const key = realpathSync(database.name);
  return createStore(db, SQLITE_DIALECT, {
    writeLock: acquireWriteLock(key),
    onClose: () => releaseWriteLock(key),
    busyWaitMs: busyTimeoutMs,
  });
}

/**
 * Builds a Store on an existing kysely instance (any dialect the query code supports) after
 * migrating its schema. The store owns `db` from here on: `close()` destroys it.
 */
export async function createStore(
  db: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  opts: KyselyStoreOptions = {},
): Promise<Store> {
  try {
    const version = await migrate(db, dialect, {
      writeLock: opts.writeLock,
      ...(opts.busyWaitMs !== undefined ? { busyWaitMs: opts.busyWaitMs } : {}),
    });
    return new KyselyStore(db, dialect, version, opts);
  } catch (err) {
    await db.destroy().catch(() => undefined);
    opts.onClose?.();
    throw toStoreError("migrate", err);
  }
}
