import type { TrialSpec } from "../../core/contracts.ts";
import { configError } from "../../core/errors.ts";
import { manifestRows, type TrialSummary } from "../../core/trial-summary.ts";
import type { Experiment, Store } from "../../store/store.ts";

/** An experiment as a report reads it: one row per planned trial, in manifest order. */
export interface ExperimentRows {
  experiment: Experiment;
  manifest: TrialSpec[];
  /** Every planned trial: recorded ones as stored, the others as `missing`. */
  rows: TrialSummary[];
}

/**
 * Reads an experiment's manifest and recorded trials. Recorded trials that are not in the manifest
 * (there should be none) are kept at the end rather than silently dropped.
 */
export async function loadExperimentRows(store: Store, experimentId: string): Promise<ExperimentRows> {
  const experiment = await store.getExperiment(experimentId);
  if (!experiment) throw configError("unknown_experiment", `no experiment ${experimentId} in the store`);
  const manifest = await store.getManifest(experimentId);
  const { rows, unplanned } = manifestRows(manifest, await store.listTrials(experimentId));
  return { experiment, manifest, rows: unplanned.length ? [...rows, ...unplanned] : rows };
}
