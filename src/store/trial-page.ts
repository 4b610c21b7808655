import type { Kysely, SelectQueryBuilder } from "kysely";
import type { TrialRecord } from "../core/contracts.ts";
import { chunks, ID_CHUNK } from "./batching.ts";
import type { StoreDatabase } from "./schema.ts";
import type { TrialFilter } from "./store.ts";
import { assembleRecord } from "./trial-rows.ts";

/** Where a page of trials starts: just after this (index, trial id) in manifest order. */
export interface PageCursor {
  idx: number;
  trialId: string;
}

/** Narrows a query on `trials` by a TrialFilter. */
export function filterTrials<O>(
  query: SelectQueryBuilder<StoreDatabase, "trials", O>,
  filter: TrialFilter,
): SelectQueryBuilder<StoreDatabase, "trials", O> {
  let q = query;
  if (filter.outcome !== undefined) q = q.where("outcome", "=", filter.outcome);
  if (filter.family !== undefined) q = q.where("family", "=", filter.family);
  if (filter.agent !== undefined) q = q.where("agent", "=", filter.agent);
  return q;
}

/**
 * Reads up to `pageSize` full records of an experiment after `after`, in manifest order
 * (index, then trial id), in one read transaction so a page is self-consistent.
 */
export function readTrialPage(
  db: Kysely<StoreDatabase>,
  experimentId: string,
  filter: TrialFilter,
  pageSize: number,
  after: PageCursor | undefined,
): Promise<TrialRecord[]> {
  return db.transaction().execute(async (trx) => {
    let query = trx
      .selectFrom("trials")
      .select(["trial_id", "record"])
      .where("experiment_id", "=", experimentId)
      .orderBy("idx")
      .orderBy("trial_id")
      .limit(pageSize);
    if (after) {
      const { idx, trialId } = after;
      query = query.where((eb) =>
        eb.or([eb("idx", ">", idx), eb.and([eb("idx", "=", idx), eb("trial_id", ">", trialId)])]),
      );
    }
    const rows = await filterTrials(query, filter).execute();
    if (rows.length === 0) return [];
    const { steps, verdicts } = await readStepsAndVerdicts(
      trx,
      rows.map((r) => r.trial_id),
    );
    return rows.map((r) => assembleRecord(r.record, steps.get(r.trial_id) ?? [], verdicts.get(r.trial_id)));
  });
}

/** The step JSONs (in step order) and verdict JSON of these trials, by trial id. */
export async function readStepsAndVerdicts(
  trx: Kysely<StoreDatabase>,
  trialIds: readonly string[],
): Promise<{ steps: Map<string, string[]>; verdicts: Map<string, string> }> {
  const steps = new Map<string, string[]>();
  const verdicts = new Map<string, string>();
  for (const chunk of chunks(trialIds, ID_CHUNK)) {
    const stepRows = await trx
      .selectFrom("steps")
      .select(["trial_id", "step"])
      .where("trial_id", "in", chunk)
      .orderBy("trial_id")
      .orderBy("idx")
      .execute();
    for (const s of stepRows) {
      const list = steps.get(s.trial_id);
      if (list) list.push(s.step);
      else steps.set(s.trial_id, [s.step]);
    }
    const verdictRows = await trx
      .selectFrom("verdicts")
      .select(["trial_id", "verdict"])
      .where("trial_id", "in", chunk)
      .execute();
    for (const v of verdictRows) verdicts.set(v.trial_id, v.verdict);
  }
  return { steps, verdicts };
}
