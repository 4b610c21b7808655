import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { DEFAULT_BUSY_WAIT_MS } from "./busy-retry.ts";
import { createStore } from "./create-store.ts";
import type { PostgresStoreOptions } from "./open-postgres.ts";
import { openSqlite } from "./open-sqlite.ts";
import type { StoreDatabase } from "./schema.ts";
import type { Store } from "./store.ts";
import { SQLITE_DIALECT } from "./store-dialect.ts";
import { STORE_KEY_BYTES, storeKeyPath } from "./store-key.ts";
import { isPostgresUrl } from "./store-url.ts";

/** Where the CLI keeps its store unless told otherwise (relative to the working directory). */
export const DEFAULT_STORE_PATH = ".proving/proving.db";

export interface OpenStoreOptions extends PostgresStoreOptions {
  /**
   * SQLite: how long a write waits in all for another process's write lock before failing with
   * `store_busy` (default 60000 ms). It is retried with backoff; each try waits at most
   * `BUSY_TRY_MS` inside SQLite, so the event loop is never blocked for long.
   */
  busyTimeoutMs?: number;
  /**
   * SQLite: check the file's integrity (`PRAGMA quick_check`) when it opens and refuse a damaged one
   * with `store_corrupt` (default true; about 0.15 s, up to 0.9 s on a first read, per 10,000 stored trials).
   */
  quickCheck?: boolean;
}

/** How long one statement waits inside SQLite's busy handler (synchronously) before the store retries. */
export const BUSY_TRY_MS = 200;

/**
 * Opens (creating when needed, parent directories included) the SQLite store at `path` and
 * brings its schema up to date. WAL mode, so readers never block the writer; `synchronous=FULL`,
 * so a committed transaction survives a crash. `:memory:` gives a throwaway store.
 * A `postgres://` (or `postgresql://`) URL opens the Postgres store instead (`openPostgresStore`).
 * Records are signed with the store key (`recordKey`, else the key file `<path>.key` beside the file,
 * created mode 0600 for a store never signed): `store_key_missing` when a signed store's key is gone.
 */
export async function openStore(path: string, opts: OpenStoreOptions = {}): Promise<Store> {
  if (isPostgresUrl(path)) {
    const { openPostgresStore } = await import("./open-postgres.ts");
    return openPostgresStore(path, opts);
  }
  const busyTimeoutMs = Math.max(0, opts.busyTimeoutMs ?? DEFAULT_BUSY_WAIT_MS);
  const perTry = Math.floor(Math.min(busyTimeoutMs, BUSY_TRY_MS));
  const { db, writeLock, release } = openSqlite<StoreDatabase>(path, {
    busyTryMs: perTry,
    synchronous: "FULL",
    ...(opts.quickCheck === false ? { quickCheck: false } : {}),
  });
  if (!writeLock) {
    // a throwaway store signs with a throwaway key
    return createStore(db, SQLITE_DIALECT, {
      recordKey: opts.recordKey ?? randomBytes(STORE_KEY_BYTES),
      keySource: opts.keySource ?? "memory",
    });
  }
  // The key lives beside the file, never in it; a store never signed gets a new key file.
  const keyFile = storeKeyPath(resolve(path));
  // Stores on the same file in this process take turns writing (see WriteLock).
  return createStore(db, SQLITE_DIALECT, {
    writeLock,
    onClose: release,
    busyWaitMs: busyTimeoutMs,
    keySource: opts.keySource ?? keyFile,
    ...(opts.recordKey ? { recordKey: opts.recordKey } : { keyFile }),
  });
}
