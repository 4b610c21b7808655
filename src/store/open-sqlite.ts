import { mkdirSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import type Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { errorMessage, ProvingError } from "../core/errors.ts";
import { loadOptional } from "../core/optional-dependency.ts";
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
  /**
   * Run `PRAGMA quick_check` when the file opens (default true) and refuse a damaged one with
   * `store_corrupt`. Its cost grows with the file: about 0.15 s with the file in the page cache (up to
   * 0.9 s on its first read) for a store of 10,000 trials (100,000 steps, 72 MB).
   */
  quickCheck?: boolean;
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
 * better-sqlite3, an optional dependency (a native module), loaded when a store opens (Node caches it):
 * `optional_dependency_missing` where it is not installed.
 */
const loadSqlite = (): typeof Database =>
  loadOptional(() => createRequire(import.meta.url)("better-sqlite3") as typeof Database);

/**
 * Opens (creating when needed, parent directories included) the SQLite database at `path` in WAL
 * mode, so readers never block the writer, and takes the process-wide write lock of its file.
 * `:memory:` (or "") gives a throwaway database and no lock. `store_open_failed` if it cannot open;
 * `store_corrupt` if the file is damaged (`PRAGMA quick_check` on every open unless `quickCheck: false`),
 * so nothing writes on into a damaged store.
 */
export function openSqlite<DB>(path: string, opts: SqliteOptions): OpenedSqlite<DB> {
  const Sqlite = loadSqlite();
  let database: Database.Database | undefined;
  try {
    if (path !== ":memory:" && path !== "") mkdirSync(dirname(resolve(path)), { recursive: true });
    database = new Sqlite(path, { timeout: opts.busyTryMs });
    database.pragma(`busy_timeout = ${opts.busyTryMs}`);
    database.pragma("journal_mode = WAL");
    database.pragma(`synchronous = ${opts.synchronous}`);
    if (opts.quickCheck !== false && !database.memory) quickCheck(database, path);
  } catch (err) {
    database?.close();
    if (err instanceof ProvingError) throw err;
    if (isCorruptError(err)) throw storeCorrupt(path, errorMessage(err), err);
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

/** SQLite's result codes for a damaged file or one that is not a database. */
function isCorruptError(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB");
}

function storeCorrupt(path: string, problem: string, cause?: unknown): ProvingError {
  return new ProvingError(
    "store_corrupt",
    `store ${path} is damaged (${problem}); nothing was written to it. Restore it from a backup, or copy out what is readable (\`sqlite3 ${path} .recover | sqlite3 NEW.db\`) and use that file, or start a new store with --store NEW_PATH`,
    { ...(cause === undefined ? {} : { cause }), details: { path, problem } },
  );
}

/** `PRAGMA quick_check` (b-tree structure, page and record format; O(file size)); throws `store_corrupt`. */
function quickCheck(database: Database.Database, path: string): void {
  const rows = database.pragma("quick_check(5)") as { quick_check: string }[];
  const problems = rows.map((r) => r.quick_check).filter((r) => r !== "ok");
  if (problems.length > 0) throw storeCorrupt(path, `PRAGMA quick_check: ${problems.join("; ")}`);
}
