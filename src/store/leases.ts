import type { Kysely, Selectable } from "kysely";
import type { ExperimentLeasesTable, StoreDatabase } from "./schema.ts";

/** Who holds an experiment (a process running, resuming or following it) and until when. */
export interface ExperimentLease {
  experimentId: string;
  /** The holder's id (host:pid:nonce). */
  holder: string;
  /** ISO time the holder took the lease. */
  acquiredAt: string;
  /** Epoch ms after which the lease is dead unless renewed (a heartbeat pushes it on). */
  expiresAt: number;
}

export interface LeaseRequest {
  holder: string;
  /** How long the lease lasts without a renewal. */
  ttlMs: number;
  /** The holder's clock (epoch ms). */
  nowMs: number;
  /** Take the lease even from a live holder (its process died, the user says). */
  force?: boolean;
  /** Take the lease from this holder even though it is live (it is known dead); no one else's. */
  replaces?: string;
}

/** `acquired` with whoever held it before (dead or forced), or refused with the live holder. */
export type LeaseResult =
  | { acquired: true; previous?: ExperimentLease }
  | { acquired: false; holder: ExperimentLease };

export function leaseFromRow(row: Selectable<ExperimentLeasesTable>): ExperimentLease {
  return {
    experimentId: row.experiment_id,
    holder: row.holder,
    acquiredAt: row.acquired_at,
    expiresAt: Number(row.expires_at),
  };
}

export async function readLease(
  db: Kysely<StoreDatabase>,
  experimentId: string,
): Promise<ExperimentLease | undefined> {
  const row = await db
    .selectFrom("experiment_leases")
    .selectAll()
    .where("experiment_id", "=", experimentId)
    .executeTakeFirst();
  return row && leaseFromRow(row);
}

/** In a write transaction: takes the lease unless another holder's is live (and not forced). */
export async function takeLease(
  trx: Kysely<StoreDatabase>,
  experimentId: string,
  req: LeaseRequest,
): Promise<LeaseResult> {
  const current = await readLease(trx, experimentId);
  if (
    current &&
    current.holder !== req.holder &&
    current.expiresAt > req.nowMs &&
    !req.force &&
    current.holder !== req.replaces
  )
    return { acquired: false, holder: current };
  const row = {
    experiment_id: experimentId,
    holder: req.holder,
    acquired_at: new Date(req.nowMs).toISOString(),
    expires_at: req.nowMs + req.ttlMs,
  };
  await trx
    .insertInto("experiment_leases")
    .values(row)
    .onConflict((oc) =>
      oc
        .column("experiment_id")
        .doUpdateSet({ holder: row.holder, acquired_at: row.acquired_at, expires_at: row.expires_at }),
    )
    .execute();
  return current && current.holder !== req.holder
    ? { acquired: true, previous: current }
    : { acquired: true };
}

/** Pushes the holder's lease on; false when it no longer holds it (taken over with --force). */
export async function renewLease(
  trx: Kysely<StoreDatabase>,
  experimentId: string,
  holder: string,
  expiresAt: number,
): Promise<boolean> {
  const result = await trx
    .updateTable("experiment_leases")
    .set({ expires_at: expiresAt })
    .where("experiment_id", "=", experimentId)
    .where("holder", "=", holder)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function dropLease(
  trx: Kysely<StoreDatabase>,
  experimentId: string,
  holder: string,
): Promise<void> {
  await trx
    .deleteFrom("experiment_leases")
    .where("experiment_id", "=", experimentId)
    .where("holder", "=", holder)
    .execute();
}
