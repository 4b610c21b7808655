import type { TrialSpec } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import { canonicalJson } from "../core/hash.ts";
import type { JsonObject } from "../core/json.ts";
import type { Store } from "../store/store.ts";

/** An experiment as the store keeps it: its id, its definition (`config.id` is the id), its creation time. */
export interface ExperimentEntry {
  id: string;
  config: JsonObject;
  /** ISO timestamp. */
  createdAt: string;
}

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

/** What fixes the plan of an experiment (how fast it runs and how it is described do not). */
function plannedPart(config: JsonObject): string {
  const { concurrency: _c, description: _d, ...plan } = config;
  return canonicalJson(plan);
}
