import type { Kysely } from "kysely";
import { KyselyStore, type KyselyStoreOptions } from "./kysely-store.ts";
import { migrate } from "./migrations.ts";
import { checkStoreKey } from "./record-integrity.ts";
import type { StoreDatabase } from "./schema.ts";
import type { Store } from "./store.ts";
import { type StoreDialect, writeTransaction } from "./store-dialect.ts";
import { toStoreError } from "./store-errors.ts";

/**
 * Builds a Store on an existing kysely instance (any dialect the query code supports) after
 * migrating its schema and checking its key (`store_key_missing`, `store_key_mismatch`). The store owns `db` from here on: `close()` destroys it.
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
    // the key is checked against the one the store was signed with (a store never signed takes it)
    const recordKey = await writeTransaction(
      db,
      dialect,
      (trx) =>
        checkStoreKey(trx, opts.recordKey, {
          where: opts.keySource ?? "the store options",
          now: new Date().toISOString(),
          ...(opts.keyFile !== undefined ? { keyFile: opts.keyFile } : {}),
        }),
      opts.writeLock,
      opts.busyWaitMs,
    );
    return new KyselyStore(db, dialect, version, recordKey ? { ...opts, recordKey } : opts);
  } catch (err) {
    await db.destroy().catch(() => undefined);
    opts.onClose?.();
    throw toStoreError("migrate", err);
  }
}
