import type { Queue } from "bullmq";
import type { Store } from "../store/store.ts";
import { enqueueTrials, type TrialJobData, type TrialQueueOptions } from "./trial-queue.ts";

export interface ReconcileResult {
  experimentId: string;
  planned: number;
  missing: number;
  /** Trials (re-)enqueued: every planned trial without a record (a job still queued is left as it is). */
  enqueued: number;
  /** The experiment has a record for every planned trial (and is now marked `completed`). */
  complete: boolean;
}

/**
 * The store is the ledger, the queue only hands out work: re-enqueues every planned trial that has no
 * record (this is what recovers trials lost with Redis' data), and marks an experiment whose trials
 * are all recorded `completed`. Safe to run any number of times, from any process.
 */
export async function reconcileExperiment(
  store: Store,
  queue: Queue<TrialJobData>,
  experimentId: string,
  opts: TrialQueueOptions = {},
): Promise<ReconcileResult> {
  const missing = await store.missingTrials(experimentId);
  const planned = (await store.getManifest(experimentId)).length;
  const enqueued = missing.length ? await enqueueTrials(queue, missing, opts) : 0;
  const complete = missing.length === 0;
  if (complete) {
    const experiment = await store.getExperiment(experimentId);
    if (experiment && experiment.status !== "completed")
      await store.setExperimentStatus(experimentId, "completed");
  }
  return { experimentId, planned, missing: missing.length, enqueued, complete };
}

/** Reconciles every `running` experiment that was run on a queue (it has a stored gym). */
export async function reconcileRunning(
  store: Store,
  queue: Queue<TrialJobData>,
  opts: TrialQueueOptions = {},
): Promise<ReconcileResult[]> {
  const out: ReconcileResult[] = [];
  for (const experiment of await store.listExperiments()) {
    if (experiment.status !== "running") continue;
    if (!(await store.getExperimentGym(experiment.id))) continue;
    out.push(await reconcileExperiment(store, queue, experiment.id, opts));
  }
  return out;
}
