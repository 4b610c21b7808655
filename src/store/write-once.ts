import type { Kysely } from "kysely";
import type { TrialRecord } from "../core/contracts.ts";
import { chunks, rowsPerInsert } from "./batching.ts";
import { signRows } from "./record-integrity.ts";
import type { StoreDatabase } from "./schema.ts";
import { unknownExperiment } from "./store-errors.ts";
import { trialToRows, validateRecord } from "./trial-rows.ts";

/**
 * Inserts a trial's record unless one is already there (first writer wins), inside the caller's
 * write transaction. Steps and verdict are inserted only when this insert won, so a record never
 * mixes two attempts. With the store key, the row carries its MAC. Returns whether it won.
 */
export async function insertTrialOnce(
  trx: Kysely<StoreDatabase>,
  record: TrialRecord,
  key?: Buffer,
): Promise<boolean> {
  validateRecord(record);
  const rows = signRows(key, trialToRows(record));
  const experiment = await trx
    .selectFrom("experiments")
    .select("id")
    .where("id", "=", rows.trial.experiment_id)
    .executeTakeFirst();
  if (!experiment) throw unknownExperiment(rows.trial.experiment_id);
  const result = await trx
    .insertInto("trials")
    .values(rows.trial)
    .onConflict((oc) => oc.column("trial_id").doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) return false;
  for (const chunk of chunks(rows.steps, rowsPerInsert(3))) {
    await trx.insertInto("steps").values(chunk).execute();
  }
  if (rows.verdict) await trx.insertInto("verdicts").values(rows.verdict).execute();
  return true;
}
