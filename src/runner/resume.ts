import { configError } from "../core/errors.ts";
import type { ExperimentStatus, Store } from "../store/store.ts";
import { parseExperiment } from "./experiment.ts";
import { type ExperimentResult, type RunOptions, runExperiment } from "./run.ts";

export interface ResumeResult extends ExperimentResult {
  /** Status the experiment had before this resume (`running` after a killed process). */
  previousStatus: ExperimentStatus;
  /** Planned trials already recorded before this resume. */
  previouslyRecorded: number;
}

/**
 * Runs what an experiment in the store is missing, from its stored definition: the manifest is
 * expanded again and must equal the stored one (`manifest_conflict` otherwise), recorded trials are
 * left alone, and the status ends `completed` (or `interrupted` again). Agents are resolved again
 * from the stored specs (module paths against `opts.cwd`).
 */
export async function resumeExperiment(
  experimentId: string,
  opts: RunOptions & { store: Store },
): Promise<ResumeResult> {
  const store = opts.store;
  const experiment = await store.getExperiment(experimentId);
  if (!experiment) {
    throw configError(
      "unknown_experiment",
      `no experiment ${experimentId} in the store (start it with \`proving run --id ${experimentId}\`)`,
    );
  }
  if (experiment.config.kind === "serve") {
    throw configError(
      "bad_experiment",
      `experiment ${experimentId} was recorded by \`proving serve\`: its episodes were played by clients, so there is nothing to resume (its missing episodes were abandoned)`,
    );
  }
  const config = parseExperiment({ ...experiment.config, id: experimentId });
  const previouslyRecorded = (await store.recordedTrialIds(experimentId)).size;
  const result = await runExperiment(config, opts);
  return { ...result, previousStatus: experiment.status, previouslyRecorded };
}
