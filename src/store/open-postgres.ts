import { Kysely, PostgresDialect } from "kysely";
import { errorMessage, ProvingError } from "../core/errors.ts";
import { importOptional } from "../core/optional-dependency.ts";
import { createStore } from "./create-store.ts";
import type { KyselyStoreOptions } from "./kysely-store.ts";
import type { StoreDatabase } from "./schema.ts";
import type { Store } from "./store.ts";
import { POSTGRES_DIALECT } from "./store-dialect.ts";
import { redactStoreUrl } from "./store-url.ts";

export interface PostgresStoreOptions {
  /** Connections in the pool (default 10). */
  maxConnections?: number;
  /** How long to wait for a connection before failing (default 10000 ms). */
  connectTimeoutMs?: number;
  /**
   * The store key (kept outside the store: `$PROVING_STORE_KEY` in the CLI): trial rows get their
   * HMAC and completed experiments their seal. A SQLite file without one uses its key file
   * (`<store>.key`); a Postgres store without one is unsigned (and a signed one is `store_key_missing`).
   */
  recordKey?: Buffer;
  /** Where `recordKey` came from, for error messages. */
  keySource?: string;
}

/**
 * Connects a kysely instance to the Postgres database at `url` (`pg` loads only here), checking one
 * connection works; `store_open_failed` otherwise. No migration: callers run `migrate` (or use
 * `openPostgresStore`). The curriculum's store (`openCurriculumStore`) opens its tables through this too.
 */
export async function connectPostgres<DB = StoreDatabase>(
  url: string,
  opts: PostgresStoreOptions = {},
): Promise<Kysely<DB>> {
  let pool: import("pg").Pool;
  try {
    const pg = await importOptional(() => import("pg"));
    const Pool = pg.default?.Pool ?? pg.Pool;
    pool = new Pool({
      connectionString: url,
      max: opts.maxConnections ?? 10,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    });
    // An idle client whose server went away emits `error` on the pool; unhandled, it would kill
    // the process. The next query gets a fresh connection (or a store_failed error).
    pool.on("error", () => undefined);
    const client = await pool.connect();
    client.release();
  } catch (err) {
    if (err instanceof ProvingError) throw err; // optional_dependency_missing: pg is not installed
    throw new ProvingError(
      "store_open_failed",
      `cannot open store ${redactStoreUrl(url)}: ${errorMessage(err)}`,
      {
        cause: err,
        details: { store: redactStoreUrl(url) },
      },
    );
  }
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * Opens the store in the Postgres database at `url` (`postgres://user:pass@host:port/db`) on the
 * same kysely schema and queries as SQLite, and migrates it. `pg` loads only here. Many processes
 * (a coordinator and its workers) may open the same database: migrations take an advisory lock.
 * A connection the server drops (a restart) fails the statement using it with `store_failed`; the
 * pool reconnects for the next one.
 */
export async function openPostgresStore(url: string, opts: PostgresStoreOptions = {}): Promise<Store> {
  const db = await connectPostgres(url, opts);
  const storeOpts: KyselyStoreOptions = {
    ...(opts.recordKey ? { recordKey: opts.recordKey } : {}),
    keySource: opts.keySource ?? "PROVING_STORE_KEY",
  };
  return createStore(db, POSTGRES_DIALECT, storeOpts);
}
