import type { TrialSpec } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import { canonicalJson } from "../core/hash.ts";
import type { JsonObject } from "../core/json.ts";
import { type HeldLease, type HoldLeaseOptions, holdExperimentLease } from "../store/experiment-lease.ts";
import type { Store } from "../store/store.ts";
import type { ExperimentEntry } from "./recorder.ts";

/**
 * Opens an experiment in the store for a run: creates it, or finds it with the same plan
 * (`experiment_conflict` when its plan differs), writes the manifest before any trial runs (every
 * planned trial counts from here on, run or not) and marks it `running`. Returns the ids of the
 * planned trials already recorded (what a resume skips).
 */
export async function openExperiment(
  store: Store,
  entry: ExperimentEntry,
  manifest: readonly TrialSpec[],
): Promise<Set<string>> {
  const existing = await store.createExperiment(entry, { ifNotExists: true });
  if (plannedPart(existing.config) !== plannedPart(entry.config)) {
    throw configError(
      "experiment_conflict",
      `experiment ${entry.id} exists with a different plan; resume it as it is or choose another id`,
    );
  }
  await store.writeManifest(entry.id, manifest);
  const recorded = await store.recordedTrialIds(entry.id);
  await store.setExperimentStatus(entry.id, "running");
  return recorded;
}

/**
 * `openExperiment` under the experiment's lease: the lease is taken (`experiment_live` when another
 * live process holds it; `force` takes it over) after the plan check and before the manifest is
 * written and the recorded trials are read, so no two processes run the same missing trials. The
 * caller releases the lease when its run ends.
 */
export async function openLeasedExperiment(
  store: Store,
  entry: ExperimentEntry,
  manifest: readonly TrialSpec[],
  lease: HoldLeaseOptions = {},
): Promise<{ recorded: Set<string>; lease: HeldLease }> {
  const existing = await store.createExperiment(entry, { ifNotExists: true });
  if (plannedPart(existing.config) !== plannedPart(entry.config)) {
    throw configError(
      "experiment_conflict",
      `experiment ${entry.id} exists with a different plan; resume it as it is or choose another id`,
    );
  }
  const held = await holdExperimentLease(store, entry.id, lease);
  try {
    return { recorded: await openExperiment(store, entry, manifest), lease: held };
  } catch (err) {
    await held.release();
    throw err;
  }
}

/** What fixes the plan of an experiment (how fast it runs and how it is described do not). */
function plannedPart(config: JsonObject): string {
  const { concurrency: _c, description: _d, ...plan } = config;
  return canonicalJson(plan);
}
