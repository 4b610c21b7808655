import type { JsonObject } from "../core/json.ts";
import { executePlan } from "../runner/executor.ts";
import type { ExperimentConfig } from "../runner/experiment.ts";
import { planExperiment, resolveAgents } from "../runner/plan.ts";
import type { Progress } from "../runner/progress.ts";
import type { ExperimentResult } from "../runner/run.ts";
import type { RunParts } from "../runner/run-parts.ts";
import { StoreRecorder } from "../runner/store-recorder.ts";
import type { Store } from "../store/store.ts";
import { queueScheduler } from "./queue-scheduler.ts";
import type { TrialQueueOptions } from "./trial-queue.ts";

export interface QueuedRunOptions extends TrialQueueOptions {
  /** What running trials needs (`gym.runOptions()`). */
  run: RunParts;
  /** The gym as plain JSON (`gym.describe()`): the workers rebuild the same gym from it. */
  gymDescription: JsonObject;
  store: Store;
  queueUrl: string;
  /** Return once the trials are enqueued instead of following the run. */
  detach?: boolean;
  /** Stop following (the workers go on; `proving status` / `proving report` read the rest later). */
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  /** How often the store is read for progress (default 500 ms). */
  pollMs?: number;
  /** How often unrecorded trials are re-enqueued while following (default 10000 ms). */
  reconcileMs?: number;
  cwd?: string;
  now?: () => Date;
  /** Take the experiment's lease over from a process that died (another live coordinator or run refuses). */
  force?: boolean;
  /** The lease's length without a heartbeat (default 30000 ms). */
  leaseMs?: number;
}

export interface QueuedRunResult extends ExperimentResult {
  /** Trials put on the queue by this call. */
  enqueued: number;
  detached: boolean;
}

/**
 * `proving run --queue`: plans the experiment exactly as a local run does and runs it through the same
 * executor, with the store's recorder (under the lease, held while planning, enqueueing and following —
 * not by the workers: their records are write-once) and the queue scheduler, which stores the gym's
 * description for the workers, enqueues every planned trial without a record and follows the store.
 */
export async function runQueuedExperiment(
  config: ExperimentConfig,
  opts: QueuedRunOptions,
): Promise<QueuedRunResult> {
  const cwd = opts.cwd ?? process.cwd();
  const { run, store } = opts;
  const agents = await resolveAgents(config, run.registry, run.resolveAgent, cwd);
  const plan = planExperiment(
    config,
    agents.map((a) => a.ref),
    { registry: run.registry, planVariants: run.planVariants, now: opts.now ?? (() => new Date()) },
  );
  const scheduler = queueScheduler({
    ...opts,
    experimentId: plan.experiment.id,
    gym: opts.gymDescription,
  });
  const recorder = new StoreRecorder(store, {
    lease: {
      ...(opts.force ? { force: true } : {}),
      ...(opts.leaseMs !== undefined ? { ttlMs: opts.leaseMs } : {}),
    },
  });
  const result = await executePlan(plan, {
    registry: run.registry,
    agents: new Map(agents.map((a) => [a.ref.id, a])),
    environment: run.environment,
    recorder,
    scheduler,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const trials = await result.rows();
  const recorded = trials.filter((t) => t.outcome !== "missing").length;
  return {
    experimentId: plan.experiment.id,
    config: plan.config,
    manifest: [...plan.manifest],
    trials,
    ranNow: recorded - result.recordedBefore.size,
    interrupted: result.interrupted && !opts.detach,
    enqueued: scheduler.enqueued,
    detached: Boolean(opts.detach),
  };
}
