import { mkdirSync, realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { errorMessage, ProvingError } from "../core/errors.ts";
import { acquireWriteLock, releaseWriteLock, type WriteLock } from "./write-lock.ts";

export interface SqliteOptions {
  /** How long one statement waits inside SQLite's busy handler (synchronously), in ms. */
  busyTryMs: number;
  /**
   * `FULL` fsyncs every commit: it survives a power loss or an OS crash. `NORMAL` (in WAL mode): a
   * commit is in the WAL, in the OS's page cache, when it returns, so it survives the process being
   * killed but a power loss may drop the last commits.
   */
  synchronous: "FULL" | "NORMAL";
}

/** A SQLite database opened for a store: its kysely instance and, for a file, the file's write lock. */
export interface OpenedSqlite<DB> {
  db: Kysely<DB>;
  /** The process-wide write lock of the file (none for `:memory:`): stores on one file take turns. */
  writeLock?: WriteLock;
  /** Gives the write lock back (when the store closes, or failed to open). */
  release: () => void;
}

/**
 * Opens (creating when needed, parent directories included) the SQLite database at `path` in WAL
 * mode, so readers never block the writer, and takes the process-wide write lock of its file.
 * `:memory:` (or "") gives a throwaway database and no lock. `store_open_failed` if it cannot open.
 */
export function openSqlite<DB>(path: string, opts: SqliteOptions): OpenedSqlite<DB> {
  let database: Database.Database | undefined;
  try {
    if (path !== ":memory:" && path !== "") mkdirSync(dirname(resolve(path)), { recursive: true });
    database = new Database(path, { timeout: opts.busyTryMs });
    database.pragma(`busy_timeout = ${opts.busyTryMs}`);
    database.pragma("journal_mode = WAL");
    database.pragma(`synchronous = ${opts.synchronous}`);
  } catch (err) {
    database?.close();
    throw new ProvingError("store_open_failed", `cannot open store ${path}: ${errorMessage(err)}`, {
      cause: err,
      details: { path },
    });
  }
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database }) });
  if (database.memory) return { db, release: () => undefined };
  const key = realpathSync(database.name);
  return { db, writeLock: acquireWriteLock(key), release: () => releaseWriteLock(key) };
}
