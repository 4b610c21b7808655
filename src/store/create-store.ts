import type { Kysely } from "kysely";
import { KyselyStore, type KyselyStoreOptions } from "./kysely-store.ts";
import { migrate } from "./migrations.ts";
import type { StoreDatabase } from "./schema.ts";
import type { Store } from "./store.ts";
import type { StoreDialect } from "./store-dialect.ts";
import { toStoreError } from "./store-errors.ts";

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
