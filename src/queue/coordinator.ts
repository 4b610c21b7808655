import type { AgentRef, Outcome } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import { manifestRows, type TrialSummary } from "../core/trial-summary.ts";
import type { Gym } from "../gym/gym.ts";
import type { ExperimentConfig } from "../runner/experiment.ts";
import { expandManifest } from "../runner/manifest.ts";
import { openLeasedExperiment } from "../runner/open-experiment.ts";
import { type ExperimentResult, newExperimentId, type Progress, resolveAgents } from "../runner/run.ts";
import type { Store } from "../store/store.ts";
import { reconcileExperiment } from "./reconcile.ts";
import { openTrialQueue, type TrialQueueOptions } from "./trial-queue.ts";

export interface QueuedRunOptions extends TrialQueueOptions {
  gym: Gym;
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

/** Progress counters from recorded summaries (as a local run counts them). */
export function progressOf(planned: number, recorded: readonly TrialSummary[]): Progress {
  const outcomes: Partial<Record<Outcome, number>> = {};
  let passed = 0;
  let violated = 0;
  let errors = 0;
  for (const t of recorded) {
    outcomes[t.outcome] = (outcomes[t.outcome] ?? 0) + 1;
    if (t.outcome === "passed") passed++;
    if (t.violations.length) violated++;
    if (t.outcome === "agent_error" || t.outcome === "infra_error") errors++;
  }
  return { planned, done: recorded.length, passed, violated, errors, outcomes };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });

/**
 * `proving run --queue`: plans the experiment exactly as a local run does (manifest written first, in
 * the store), stores the gym's description for the workers, enqueues every planned trial without a
 * record (job id = trial id), then follows the store until every trial is recorded, re-enqueueing
 * what is missing now and then (a lost queue loses no trial). The workers run the trials.
 */
export async function runQueuedExperiment(
  config: ExperimentConfig,
  opts: QueuedRunOptions,
): Promise<QueuedRunResult> {
  const now = opts.now ?? (() => new Date());
  const cwd = opts.cwd ?? process.cwd();
  const { gym, store } = opts;
  const run = gym.runOptions();
  const agents = await resolveAgents(config, run.registry, run.resolveAgent, cwd);
  const experimentId = config.id ?? newExperimentId(now());
  const refs: AgentRef[] = agents.map((a) => a.ref);
  const variants = config.variants?.length ? run.planVariants(config) : undefined;
  const manifest = expandManifest(experimentId, config, refs, run.registry, variants);
  const stored = { ...config, id: experimentId } as unknown as JsonObject;
  // held while planning, enqueueing and following (not by the workers: their records are write-once)
  const { recorded: recordedBefore, lease } = await openLeasedExperiment(
    store,
    { id: experimentId, config: stored, createdAt: now().toISOString() },
    manifest,
    {
      ...(opts.force ? { force: true } : {}),
      ...(opts.leaseMs !== undefined ? { ttlMs: opts.leaseMs } : {}),
    },
  );
  let enqueued = 0;
  let interrupted = false;
  let queue: Awaited<ReturnType<typeof openTrialQueue>> | undefined;
  try {
    await store.setExperimentGym(experimentId, gym.describe() as unknown as JsonObject);
    queue = await openTrialQueue(opts.queueUrl);
    const first = await reconcileExperiment(store, queue, experimentId, opts);
    enqueued += first.enqueued;
    if (!opts.detach) {
      const pollMs = opts.pollMs ?? 500;
      const reconcileMs = opts.reconcileMs ?? 10_000;
      let lastReconcile = Date.now();
      let lastDone = -1;
      for (;;) {
        const recorded = await store.listTrials(experimentId);
        if (recorded.length !== lastDone) {
          lastDone = recorded.length;
          opts.onProgress?.(progressOf(manifest.length, recorded));
        }
        if (recorded.length >= manifest.length) {
          await reconcileExperiment(store, queue, experimentId, opts); // marks it completed
          break;
        }
        if (opts.signal?.aborted || lease.lost) {
          interrupted = true;
          break;
        }
        if (Date.now() - lastReconcile >= reconcileMs) {
          lastReconcile = Date.now();
          enqueued += (await reconcileExperiment(store, queue, experimentId, opts)).enqueued;
        }
        await sleep(pollMs, opts.signal);
      }
    }
  } finally {
    await queue?.close().catch(() => undefined);
    await lease.release();
  }
  const recorded = await store.listTrials(experimentId);
  return {
    experimentId,
    config: { ...config, id: experimentId },
    manifest,
    trials: manifestRows(manifest, recorded).rows,
    ranNow: recorded.length - recordedBefore.size,
    interrupted,
    enqueued,
    detached: Boolean(opts.detach),
  };
}
