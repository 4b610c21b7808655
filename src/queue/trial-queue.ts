import type { Queue } from "bullmq";
import type { TrialSpec } from "../core/contracts.ts";
import { importOptional } from "../core/optional-dependency.ts";
import { redisConnection } from "./connection.ts";

/** The one BullMQ queue trials go through (every experiment; a job's id is its trial's id). */
export const TRIAL_QUEUE = "proving-trials";

/** What a job carries: only where to find the trial. The spec, the gym and the record live in the store. */
export interface TrialJobData {
  experimentId: string;
  trialId: string;
}

export interface TrialQueueOptions {
  /** Attempts before a trial is recorded as `infra_error` (default 3). */
  attempts?: number;
  /** First retry delay; doubles each attempt (default 1000 ms). */
  backoffMs?: number;
}

export const DEFAULT_ATTEMPTS = 3;

/** Opens the trial queue on Redis (BullMQ loads here). Close it with `queue.close()`. */
export async function openTrialQueue(url: string): Promise<Queue<TrialJobData>> {
  const { Queue } = await importOptional(() => import("bullmq"));
  const queue = new Queue<TrialJobData>(TRIAL_QUEUE, { connection: redisConnection(url) });
  queue.on("error", () => undefined); // a lost connection is retried by ioredis; calls fail meanwhile
  return queue;
}

/**
 * Adds one job per spec, job id = trial id. Adding a trial whose job is still in the queue (waiting,
 * active, delayed) is a no-op in BullMQ, so enqueueing twice runs nothing twice; the store's write-once
 * record covers the rest (a finished job is removed, and a worker skips a trial that has a record).
 */
export async function enqueueTrials(
  queue: Queue<TrialJobData>,
  specs: readonly TrialSpec[],
  opts: TrialQueueOptions = {},
): Promise<number> {
  const attempts = opts.attempts ?? DEFAULT_ATTEMPTS;
  const backoffMs = opts.backoffMs ?? 1000;
  for (let i = 0; i < specs.length; i += 500) {
    await queue.addBulk(
      specs.slice(i, i + 500).map((spec) => ({
        name: "trial",
        data: { experimentId: spec.experimentId, trialId: spec.id },
        opts: {
          jobId: spec.id,
          attempts,
          backoff: { type: "exponential", delay: backoffMs },
          removeOnComplete: true,
          removeOnFail: true,
        },
      })),
    );
  }
  return specs.length;
}
