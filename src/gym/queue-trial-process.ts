/**
 * The BullMQ sandboxed processor (a process entry point, so a composition root: it wires the gym's
 * loader into the queue's trial runner): each worker slot runs its trials in this child process, so a
 * CPU-heavy (or crashing, or memory-exhausting) trial never stalls the parent's lock renewals, and
 * its death fails one attempt instead of the worker. This module is a process entry point: it reads
 * what `startTrialWorker` put in its environment (the store URL, the worker name, the cwd) and hands
 * the rest of that environment to the rebuilt gym (API keys).
 */
import os from "node:os";
import { fileURLToPath } from "node:url";
import type { SandboxedJob } from "bullmq";
import { LimiterPool } from "../agents/llm/limiter.ts";
import { type QueuedTrialResult, QueuedTrialRunner } from "../queue/queued-trial.ts";
import { createRedisRateLimit, type RedisRateLimitOptions } from "../queue/redis-rate-limit.ts";
import { CWD_ENV, LLM_LIMIT_ENV, STORE_ENV, WORKER_ENV } from "../queue/trial-process-env.ts";
import type { TrialJobData } from "../queue/trial-queue.ts";
import { openStore } from "../store/open-store.ts";
import { STORE_KEY_ENV, storeKeyOptions } from "../store/store-key.ts";
import { loadGym } from "./load-gym.ts";

/** This module's file: what `startTrialWorker` forks for each worker slot (`processor`). */
export const QUEUE_TRIAL_PROCESS = fileURLToPath(import.meta.url);

let runner: Promise<QueuedTrialRunner> | undefined;

function getRunner(): Promise<QueuedTrialRunner> {
  if (!runner) {
    const env = process.env;
    const storeUrl = env[STORE_ENV];
    if (!storeUrl) throw new Error(`sandboxed trial processor: ${STORE_ENV} is not set`);
    runner = (async () => {
      // the store key comes from the worker's environment (this process's agents never see it)
      const store = await openStore(storeUrl, { maxConnections: 2, ...storeKeyOptions(env[STORE_KEY_ENV]) });
      const limit = env[LLM_LIMIT_ENV]
        ? (JSON.parse(env[LLM_LIMIT_ENV]!) as { url: string } & RedisRateLimitOptions)
        : undefined;
      const limiters = limit
        ? new LimiterPool({ shared: await createRedisRateLimit(limit.url, limit) })
        : undefined;
      return new QueuedTrialRunner({
        store,
        worker: env[WORKER_ENV] ?? `${os.hostname()}:${process.ppid}`,
        cwd: env[CWD_ENV] ?? process.cwd(),
        env,
        // the worker rebuilds each experiment's gym from its stored description: the same gym
        rebuild: async (description, opts) => (await loadGym(description, opts)).runOptions(),
        ...(limiters ? { limiters } : {}),
      });
    })();
    runner.catch(() => {
      runner = undefined;
    });
  }
  return runner;
}

/** The trial this process is running now, if any (what an orphaned process lets finish before it exits). */
let current: Promise<unknown> | undefined;

/** How long an orphaned trial process lets its current trial finish (record it) before it exits. */
const ORPHAN_GRACE_MS = 10_000;

/**
 * When the worker that forked this process dies (kill -9 included), the IPC channel closes: this
 * process lets its current trial finish and record (write-once, so the queue's re-delivery is
 * harmless) for at most ORPHAN_GRACE_MS, then exits. BullMQ's own SIGTERM handler waits for a job
 * whose result it can no longer send, so without this an orphan spins forever.
 */
process.once("disconnect", () => {
  const exit = () => process.exit(1);
  setTimeout(exit, ORPHAN_GRACE_MS).unref();
  void (current ?? Promise.resolve()).finally(exit);
});

export default async function processTrial(job: SandboxedJob<TrialJobData>): Promise<QueuedTrialResult> {
  const run = (async () => (await getRunner()).run(job.data, job.attemptsMade + 1))();
  current = run.catch(() => undefined);
  return run;
}
