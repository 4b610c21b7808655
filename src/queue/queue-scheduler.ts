import type { JsonObject } from "../core/json.ts";
import type { Progress } from "../runner/progress.ts";
import type { TrialScheduler } from "../runner/trial-scheduler.ts";
import type { Store } from "../store/store.ts";
import { progressOf } from "./progress-of.ts";
import { reconcileExperiment } from "./reconcile.ts";
import { openTrialQueue, type TrialQueueOptions } from "./trial-queue.ts";

export interface QueueSchedulerOptions extends TrialQueueOptions {
  store: Store;
  queueUrl: string;
  experimentId: string;
  /** The gym's description, stored for the workers to rebuild the same gym. */
  gym: JsonObject;
  /** Return once the trials are enqueued instead of following the run. */
  detach?: boolean;
  onProgress?: (progress: Progress) => void;
  /** How often the store is read for progress (default 500 ms). */
  pollMs?: number;
  /** How often unrecorded trials are re-enqueued while following (default 10000 ms). */
  reconcileMs?: number;
  signal?: AbortSignal;
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
 * Hands the planned trials to queue workers in other processes (job id = trial id; each worker runs
 * its trial through the same executor and records it write-once), then follows the store until every
 * planned trial is recorded, re-enqueueing what is missing now and then (a lost queue loses no
 * trial). It stops following on `detach`, an abort or a lost lease, and says `handed_off`: the
 * workers go on. `enqueued` counts the jobs it put on the queue.
 */
export function queueScheduler(opts: QueueSchedulerOptions): TrialScheduler & { readonly enqueued: number } {
  let enqueued = 0;
  return {
    get enqueued() {
      return enqueued;
    },
    // the store's missing trials are the todo list: what the executor found unrecorded, and what went missing since
    async run(_todo, _runOne, stopped) {
      const { store, experimentId } = opts;
      await store.setExperimentGym(experimentId, opts.gym);
      const queue = await openTrialQueue(opts.queueUrl);
      try {
        enqueued += (await reconcileExperiment(store, queue, experimentId, opts)).enqueued;
        if (opts.detach) return "handed_off";
        const planned = (await store.getManifest(experimentId)).length;
        const pollMs = opts.pollMs ?? 500;
        const reconcileMs = opts.reconcileMs ?? 10_000;
        let lastReconcile = Date.now();
        let lastDone = -1;
        for (;;) {
          const recorded = await store.listTrials(experimentId);
          if (recorded.length !== lastDone) {
            lastDone = recorded.length;
            opts.onProgress?.(progressOf(planned, recorded));
          }
          if (recorded.length >= planned) {
            await reconcileExperiment(store, queue, experimentId, opts); // marks it completed
            return "done";
          }
          if (stopped()) return "handed_off";
          if (Date.now() - lastReconcile >= reconcileMs) {
            lastReconcile = Date.now();
            enqueued += (await reconcileExperiment(store, queue, experimentId, opts)).enqueued;
          }
          await sleep(pollMs, opts.signal);
        }
      } finally {
        await queue.close().catch(() => undefined);
      }
    },
  };
}
