/**
 * The BullMQ sandboxed processor: each worker slot runs its trials in this child process, so a
 * CPU-heavy (or crashing, or memory-exhausting) trial never stalls the parent's lock renewals, and
 * its death fails one attempt instead of the worker. This module is a process entry point: it reads
 * what `startTrialWorker` put in its environment (the store URL, the worker name, the cwd) and hands
 * the rest of that environment to the rebuilt gym (API keys).
 */
import os from "node:os";
import type { SandboxedJob } from "bullmq";
import { LimiterPool } from "../agents/llm/limiter.ts";
import { openStore } from "../store/open-store.ts";
import { type QueuedTrialResult, QueuedTrialRunner } from "./queued-trial.ts";
import { createRedisRateLimit, type RedisRateLimitOptions } from "./redis-rate-limit.ts";
import type { TrialJobData } from "./trial-queue.ts";

export const STORE_ENV = "PROVING_QUEUE_STORE";
export const WORKER_ENV = "PROVING_QUEUE_WORKER";
export const CWD_ENV = "PROVING_QUEUE_CWD";
/** JSON `{url, requestsPerWindow, tokensPerWindow, windowMs}`: the global LLM budget through Redis. */
export const LLM_LIMIT_ENV = "PROVING_QUEUE_LLM_LIMIT";

let runner: Promise<QueuedTrialRunner> | undefined;

function getRunner(): Promise<QueuedTrialRunner> {
  if (!runner) {
    const env = process.env;
    const storeUrl = env[STORE_ENV];
    if (!storeUrl) throw new Error(`sandboxed trial processor: ${STORE_ENV} is not set`);
    runner = (async () => {
      const store = await openStore(storeUrl, { maxConnections: 2 });
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
        ...(limiters ? { limiters } : {}),
      });
    })();
    runner.catch(() => {
      runner = undefined;
    });
  }
  return runner;
}

export default async function processTrial(job: SandboxedJob<TrialJobData>): Promise<QueuedTrialResult> {
  return (await getRunner()).run(job.data, job.attemptsMade + 1);
}
