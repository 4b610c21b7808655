import type { Kysely, Selectable } from "kysely";
import type { AttemptsTable, StoreDatabase } from "./schema.ts";

/**
 * `running`; `recorded` (its record won); `duplicate` (another attempt's record was first); `failed`
 * (a throw, with the error); `abandoned` (its worker died or lost the trial: the trial was delivered
 * again, or given up as a poison trial, while this attempt was still `running`).
 */
export const ATTEMPT_STATUSES = ["running", "recorded", "duplicate", "failed", "abandoned"] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

/** One execution of a trial by a worker: the audit trail beside the write-once record. */
export interface Attempt {
  attemptId: string;
  trialId: string;
  experimentId: string;
  /** 1 for the first delivery of the trial, counting redeliveries. */
  attempt: number;
  worker: string;
  startedAt: string;
  endedAt?: string;
  status: AttemptStatus;
  error?: string;
}

export interface NewAttempt {
  attemptId: string;
  trialId: string;
  experimentId: string;
  attempt: number;
  worker: string;
  startedAt: string;
}

export interface AttemptEnd {
  endedAt: string;
  status: Exclude<AttemptStatus, "running">;
  error?: string;
}

export function attemptFromRow(row: Selectable<AttemptsTable>): Attempt {
  const attempt: Attempt = {
    attemptId: row.attempt_id,
    trialId: row.trial_id,
    experimentId: row.experiment_id,
    attempt: Number(row.attempt),
    worker: row.worker,
    startedAt: row.started_at,
    status: row.status as AttemptStatus,
  };
  if (row.ended_at != null) attempt.endedAt = row.ended_at;
  if (row.error != null) attempt.error = row.error;
  return attempt;
}

export async function insertAttempt(trx: Kysely<StoreDatabase>, a: NewAttempt): Promise<void> {
  await trx
    .insertInto("attempts")
    .values({
      attempt_id: a.attemptId,
      trial_id: a.trialId,
      experiment_id: a.experimentId,
      attempt: a.attempt,
      worker: a.worker,
      started_at: a.startedAt,
      ended_at: null,
      status: "running",
      error: null,
    })
    .onConflict((oc) => oc.column("attempt_id").doNothing())
    .execute();
}

export async function updateAttempt(
  trx: Kysely<StoreDatabase>,
  attemptId: string,
  end: AttemptEnd,
): Promise<void> {
  await trx
    .updateTable("attempts")
    .set({ ended_at: end.endedAt, status: end.status, error: end.error ?? null })
    .where("attempt_id", "=", attemptId)
    .execute();
}

/** Marks a trial's attempts still `running` (but `except`) as `abandoned`; returns how many. */
export async function abandonRunning(
  trx: Kysely<StoreDatabase>,
  trialId: string,
  end: { endedAt: string; error: string; except?: string },
): Promise<number> {
  let query = trx
    .updateTable("attempts")
    .set({ ended_at: end.endedAt, status: "abandoned", error: end.error })
    .where("trial_id", "=", trialId)
    .where("status", "=", "running");
  if (end.except !== undefined) query = query.where("attempt_id", "!=", end.except);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
