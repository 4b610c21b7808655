import type { TrialRecord, TrialSpec } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import type { Store } from "../store/store.ts";
import { TrialWriter } from "../store/trial-writer.ts";
import { openExperiment } from "./open-experiment.ts";
import { runTrial, type TrialDeps } from "./trial.ts";

/** Where a single trial is recorded: the store, and the experiment it belongs to (`spec.experimentId`). */
export interface TrialLedger {
  store: Store;
  /** The experiment's stored definition (its plan: one trial). */
  config: JsonObject;
  /** ISO creation time of the experiment. */
  createdAt: string;
}

/**
 * Runs one planned trial and records it the way `runExperiment` records each of its trials: the
 * experiment and its one-trial manifest are written first (so the trial counts, `missing`, should
 * the process die), then the record goes through a `TrialWriter`, then the experiment is marked
 * `completed` (`interrupted` when the store fails; the error is rethrown). A trial recorded before is
 * run again and its record replaced. Without a ledger, the record is only returned.
 */
export async function runAndRecordTrial(
  spec: TrialSpec,
  deps: TrialDeps,
  ledger?: TrialLedger,
): Promise<TrialRecord> {
  if (!ledger) return runTrial(spec, deps);
  const { store } = ledger;
  const experimentId = spec.experimentId;
  await openExperiment(store, { id: experimentId, config: ledger.config, createdAt: ledger.createdAt }, [
    spec,
  ]);
  const writer = new TrialWriter(store);
  let record: TrialRecord;
  try {
    record = await runTrial(spec, deps);
    writer.add(record);
    await writer.flush();
  } catch (err) {
    await store.setExperimentStatus(experimentId, "interrupted").catch(() => undefined);
    throw err;
  }
  await store.setExperimentStatus(experimentId, "completed");
  return record;
}

/** Where a queue worker records one attempt of a planned trial: write-once, with its attempt ended alongside. */
export interface WriteOnceLedger {
  store: Pick<Store, "recordTrialOnce">;
  attemptId: string;
  /** ISO time the attempt ends (called after the trial). */
  now: () => string;
}

/**
 * The single-trial path for a trial that is already planned elsewhere (a queue worker): runs it and
 * records it write-once (`Store.recordTrialOnce`): the first record of a trial wins, and a later
 * attempt's record (a redelivered job, a stale worker) is dropped with its attempt marked `duplicate`.
 * The experiment and its manifest are left as they are.
 */
export async function runAndRecordOnce(
  spec: TrialSpec,
  deps: TrialDeps,
  ledger: WriteOnceLedger,
): Promise<{ record: TrialRecord; inserted: boolean }> {
  const record = await runTrial(spec, deps);
  const inserted = await ledger.store.recordTrialOnce(record, {
    attemptId: ledger.attemptId,
    endedAt: ledger.now(),
  });
  return { record, inserted };
}
