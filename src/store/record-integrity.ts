import type { Kysely } from "kysely";
import { ProvingError } from "../core/errors.ts";
import { canonicalJson } from "../core/hash.ts";
import { sealMac, storeKeyId, trialMac } from "./record-mac.ts";
import type { RecordVerification } from "./record-verification.ts";
import type { StoreDatabase } from "./schema.ts";
import { readKeyFile, readOrCreateKeyFile } from "./store-key.ts";
import { readStepsAndVerdicts } from "./trial-page.ts";
import { assembleRecord, rowToSummary, SUMMARY_COLUMNS, type TrialRows, trialToRows } from "./trial-rows.ts";

/** Sets the trial row's MAC (when the store has a key). */
export function signRows(key: Buffer | undefined, rows: TrialRows): TrialRows {
  if (!key) return rows;
  rows.trial.mac = trialMac(key, {
    trialId: rows.trial.trial_id,
    experimentId: rows.trial.experiment_id,
    record: rows.trial.record,
    steps: rows.steps.map((s) => s.step),
    verdict: rows.verdict?.verdict,
  });
  return rows;
}

/**
 * Checks the key against the one the store was signed with, inside the caller's write transaction,
 * and returns the key to sign with: the given key, else the one in `keyFile` (read here, inside the
 * transaction, so a process that just created the store and its key file is seen whole). A store never
 * signed takes the key (with none, `keyFile` is created); another key is `store_key_mismatch`; no key
 * for a signed store is `store_key_missing` (`where` says where the key was looked for).
 */
export async function checkStoreKey(
  trx: Kysely<StoreDatabase>,
  given: Buffer | undefined,
  opts: { where: string; now: string; keyFile?: string },
): Promise<Buffer | undefined> {
  const rows = await trx.selectFrom("store_keys").select("key_id").execute();
  const found = given ?? (opts.keyFile === undefined ? undefined : readKeyFile(opts.keyFile));
  if (!found && rows.length > 0) {
    throw new ProvingError(
      "store_key_missing",
      `this store's records are signed, but its key is missing (looked for ${opts.where}); restore the key (the file beside a SQLite store, or PROVING_STORE_KEY) to read or write the store`,
      { details: { where: opts.where, keyId: rows[0]!.key_id } },
    );
  }
  const key = found ?? (opts.keyFile === undefined ? undefined : readOrCreateKeyFile(opts.keyFile));
  if (!key) return undefined;
  const id = storeKeyId(key);
  if (rows.some((r) => r.key_id === id)) return key;
  if (rows.length > 0) {
    throw new ProvingError(
      "store_key_mismatch",
      `the store key from ${opts.where} is not the key this store's records are signed with (key id ${rows[0]!.key_id}, given ${id})`,
      { details: { where: opts.where, keyId: rows[0]!.key_id, given: id } },
    );
  }
  await trx.insertInto("store_keys").values({ key_id: id, created_at: opts.now }).execute();
  return key;
}

/** Writes (or rewrites) the seal of a completed experiment: the ids of its recorded trials, MAC'd. */
export async function sealExperiment(
  trx: Kysely<StoreDatabase>,
  key: Buffer,
  experimentId: string,
  now: string,
): Promise<void> {
  const rows = await trx
    .selectFrom("trials")
    .select("trial_id")
    .where("experiment_id", "=", experimentId)
    .orderBy("idx")
    .orderBy("trial_id")
    .execute();
  const ids = rows.map((r) => r.trial_id);
  const seal = { trial_ids: JSON.stringify(ids), mac: sealMac(key, experimentId, ids), sealed_at: now };
  await trx
    .insertInto("experiment_seals")
    .values({ experiment_id: experimentId, ...seal })
    .onConflict((oc) => oc.column("experiment_id").doUpdateSet(seal))
    .execute();
}

const PAGE = 200;

/**
 * Verifies every trial row of an experiment (or only `trialId`'s) against its MAC, its record, the
 * manifest and the seal.
 */
export async function verifyExperimentRecords(
  db: Kysely<StoreDatabase>,
  key: Buffer | undefined,
  experimentId: string,
  status: string,
  trialId?: string,
): Promise<RecordVerification> {
  const out: RecordVerification = {
    experimentId,
    status,
    keyed: key !== undefined,
    sealed: false,
    checked: 0,
    valid: 0,
    changed: [],
    removed: [],
    inserted: [],
    unsigned: [],
    unsealed: [],
    experiment: [],
    ok: true,
  };
  const planned = new Set(
    (
      await db.selectFrom("manifest").select("trial_id").where("experiment_id", "=", experimentId).execute()
    ).map((r) => r.trial_id),
  );
  const sealRow = await db
    .selectFrom("experiment_seals")
    .selectAll()
    .where("experiment_id", "=", experimentId)
    .executeTakeFirst();
  let sealed: Set<string> | undefined;
  if (sealRow) {
    const ids = JSON.parse(sealRow.trial_ids) as string[];
    if (key && sealMac(key, experimentId, ids) !== sealRow.mac) {
      out.experiment.push("the experiment's seal (its recorded trial ids) was changed");
    } else {
      sealed = new Set(ids);
      out.sealed = key !== undefined;
    }
  }
  const seen = new Set<string>();
  let signedRows = 0;
  let after: { idx: number; trialId: string } | undefined;
  for (;;) {
    let query = db
      .selectFrom("trials")
      .select([...SUMMARY_COLUMNS, "record", "mac"])
      .where("experiment_id", "=", experimentId)
      .orderBy("idx")
      .orderBy("trial_id")
      .limit(PAGE);
    if (trialId !== undefined) query = query.where("trial_id", "=", trialId);
    if (after) {
      const { idx, trialId } = after;
      query = query.where((eb) =>
        eb.or([eb("idx", ">", idx), eb.and([eb("idx", "=", idx), eb("trial_id", ">", trialId)])]),
      );
    }
    const rows = await query.execute();
    const { steps, verdicts } = await readStepsAndVerdicts(
      db,
      rows.map((r) => r.trial_id),
    );
    for (const row of rows) {
      const id = row.trial_id;
      seen.add(id);
      out.checked++;
      const stepTexts = steps.get(id) ?? [];
      const verdict = verdicts.get(id);
      let macOk = false;
      if (row.mac == null) out.unsigned.push(id);
      else if (!key)
        out.changed.push({ trialId: id, problem: "it carries a MAC, but the store was never signed" });
      else {
        signedRows++;
        const expected = trialMac(key, {
          trialId: id,
          experimentId,
          record: row.record,
          steps: stepTexts,
          verdict,
        });
        if (expected === row.mac) macOk = true;
        else out.changed.push({ trialId: id, problem: "its record, steps or verdict do not match its MAC" });
      }
      const summaryProblem = checkSummary(row, verdict);
      if (summaryProblem) out.changed.push({ trialId: id, problem: summaryProblem });
      if (!planned.has(id)) out.inserted.push({ trialId: id, problem: "not planned in the manifest" });
      else if (sealed && !sealed.has(id)) {
        if (macOk) out.unsealed.push(id);
        else out.inserted.push({ trialId: id, problem: "recorded after the seal, without a valid MAC" });
      }
      if ((macOk || (!key && row.mac == null)) && !summaryProblem && planned.has(id)) out.valid++;
    }
    if (rows.length < PAGE) break;
    const last = rows[rows.length - 1]!;
    after = { idx: Number(last.idx), trialId: last.trial_id };
  }
  if (sealed) {
    for (const id of sealed) {
      if (trialId !== undefined && id !== trialId) continue;
      if (!seen.has(id)) out.removed.push({ trialId: id, problem: "in the seal, but its row is gone" });
    }
  } else if (key && !sealRow && status === "completed" && signedRows > 0) {
    out.experiment.push(
      "the experiment is completed but its seal is missing (a removed trial cannot be ruled out)",
    );
  }
  out.ok =
    out.changed.length === 0 &&
    out.removed.length === 0 &&
    out.inserted.length === 0 &&
    out.experiment.length === 0;
  return out;
}

type VerifiedRow = Parameters<typeof rowToSummary>[0] & { record: string };

/** The summary columns (what reports read) re-derived from the record; a difference names the columns. */
function checkSummary(row: VerifiedRow, verdict: string | undefined): string | undefined {
  let derived: ReturnType<typeof rowToSummary>;
  try {
    // the summary columns come from the record and verdict alone (steps counted in its stats)
    const record = assembleRecord(row.record, [], verdict);
    if (record.spec?.id !== row.trial_id) return "its record belongs to another trial";
    derived = rowToSummary(trialToRows(record).trial as VerifiedRow);
  } catch {
    return "its record cannot be read";
  }
  const stored = rowToSummary(row) as unknown as Record<string, unknown>;
  const want = derived as unknown as Record<string, unknown>;
  const differ = Object.keys({ ...stored, ...want }).filter(
    (k) => canonicalJson(stored[k]) !== canonicalJson(want[k]),
  );
  return differ.length === 0 ? undefined : `its ${differ.join(", ")} differ from its record`;
}
