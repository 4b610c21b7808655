import os from "node:os";
import type { Job, Queue, Worker } from "bullmq";
import { errorMessage } from "../core/errors.ts";
import { importOptional } from "../core/optional-dependency.ts";
import { unranRecord } from "../runner/trial-record.ts";
import type { Store } from "../store/store.ts";
import { redisConnection } from "./connection.ts";
import { reconcileRunning } from "./reconcile.ts";
import type { RedisRateLimitOptions } from "./redis-rate-limit.ts";
import { CWD_ENV, LLM_LIMIT_ENV, STORE_ENV, WORKER_ENV } from "./trial-process-env.ts";
import { DEFAULT_ATTEMPTS, openTrialQueue, TRIAL_QUEUE, type TrialJobData } from "./trial-queue.ts";

export interface TrialWorkerOptions {
  queueUrl: string;
  /**
   * The sandboxed processor's file, forked per worker slot: the gym's `QUEUE_TRIAL_PROCESS` (it
   * rebuilds each experiment's gym and runs its trials through the runner's pipeline).
   */
  processor: string;
  /** The store URL the trial processes open (normally `postgres://...`). */
  storeUrl: string;
  /** This process's own store (poison trials, reconciling). */
  store: Store;
  /** Trials at once, each in its own child process (default 1). */
  concurrency?: number;
  /** Name in the attempts table (default host:pid). */
  name?: string;
  /** How long a job's lock lasts without renewal; a job whose worker stops renewing is redelivered after it (default 30000). */
  lockMs?: number;
  /** Deliveries lost to a dead worker (stalls) before the trial counts as failed (default 3). */
  maxStalls?: number;
  /** Re-enqueue running experiments' unrecorded trials this often; 0 = never (default 30000). */
  reconcileMs?: number;
  /** Attempts of the jobs this worker's reconciler (re-)enqueues (default 3; `run --queue --attempts` sets its own). */
  attempts?: number;
  /** Heap limit of each trial process (`--max-old-space-size`): a trial past it dies and fails its attempt. */
  trialMemoryMb?: number;
  /** The environment of the trial processes (their gyms' API keys). */
  env: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** A global LLM budget per provider endpoint, shared by every worker through this queue's Redis. */
  llmLimit?: RedisRateLimitOptions;
  /** Called on each finished or failed job (logging). */
  onEvent?: (event: TrialWorkerEvent) => void;
}

export type TrialWorkerEvent =
  | { kind: "completed"; trialId: string; result: unknown }
  | { kind: "failed"; trialId: string; attempt: number; final: boolean; error: string }
  | { kind: "poison"; trialId: string; recorded: boolean }
  | { kind: "error"; error: string };

export interface TrialWorker {
  readonly name: string;
  /** Stop fetching, let in-flight trials finish (or, past `deadlineMs`, abandon them to redelivery), close. */
  drain(deadlineMs?: number): Promise<{ drained: boolean }>;
}

/** A `.ts` processor (a checkout run through tsx's API, not `--import`) needs tsx in its child too. */
function processorExecArgv(memoryMb?: number): string[] {
  const args = process.execArgv.filter(
    (a) => !a.startsWith("--inspect") && !(memoryMb && a.startsWith("--max-old-space-size")),
  );
  if (memoryMb) args.push(`--max-old-space-size=${Math.floor(memoryMb)}`);
  if (!import.meta.url.endsWith(".ts") || args.some((a) => a.includes("tsx"))) return args;
  return [...args, "--import", import.meta.resolve("tsx")];
}

/**
 * A BullMQ worker for trials. Each job runs in a sandboxed child process (`processor`), so
 * lock renewals never wait for a trial. A job that fails (a throw, `process.exit`, out of memory, a
 * dead worker) is retried with backoff; after its last attempt the trial is recorded, write-once, as
 * `infra_error` with the last error, so a poison trial ends instead of looping.
 */
export async function startTrialWorker(opts: TrialWorkerOptions): Promise<TrialWorker> {
  const { Worker: BullWorker } = await importOptional(() => import("bullmq"));
  const name = opts.name ?? `${os.hostname()}:${process.pid}`;
  const lockMs = opts.lockMs ?? 30_000;
  const queue: Queue<TrialJobData> = await openTrialQueue(opts.queueUrl);
  const worker: Worker<TrialJobData> = new BullWorker<TrialJobData>(TRIAL_QUEUE, opts.processor, {
    connection: redisConnection(opts.queueUrl),
    concurrency: Math.max(1, opts.concurrency ?? 1),
    lockDuration: lockMs,
    stalledInterval: Math.max(500, Math.floor(lockMs / 2)),
    maxStalledCount: opts.maxStalls ?? 3,
    useWorkerThreads: false,
    workerForkOptions: {
      execArgv: processorExecArgv(opts.trialMemoryMb),
      env: {
        ...opts.env,
        [STORE_ENV]: opts.storeUrl,
        [WORKER_ENV]: name,
        [CWD_ENV]: opts.cwd ?? process.cwd(),
        ...(opts.llmLimit
          ? { [LLM_LIMIT_ENV]: JSON.stringify({ url: opts.queueUrl, ...opts.llmLimit }) }
          : {}),
      } as NodeJS.ProcessEnv,
    },
  });
  const emit = (e: TrialWorkerEvent) => opts.onEvent?.(e);
  worker.on("error", (err) => emit({ kind: "error", error: errorMessage(err) }));
  worker.on("completed", (job, result) => emit({ kind: "completed", trialId: job.data.trialId, result }));
  worker.on("failed", (job: Job<TrialJobData> | undefined, err: Error) => {
    if (!job) return;
    const attempts = job.opts.attempts ?? DEFAULT_ATTEMPTS;
    const final = job.attemptsMade >= attempts || /stalled more than/i.test(err.message);
    emit({ kind: "failed", trialId: job.data.trialId, attempt: job.attemptsMade, final, error: err.message });
    if (final) void recordPoison(job, err);
  });

  async function recordPoison(job: Job<TrialJobData>, err: Error): Promise<void> {
    try {
      const spec = (await opts.store.getManifest(job.data.experimentId)).find(
        (s) => s.id === job.data.trialId,
      );
      if (!spec) return;
      const record = unranRecord(
        spec,
        "infra_error",
        `gave up after ${job.attemptsMade} attempt(s): ${err.message}`,
        "infrastructure",
      );
      const recorded = await opts.store.recordTrialOnce(record);
      // an attempt whose process died (killed, out of memory) never ended itself
      await opts.store.abandonAttempts(spec.id, {
        endedAt: new Date().toISOString(),
        error: `abandoned: its process died; the trial was given up: ${err.message}`,
      });
      emit({ kind: "poison", trialId: spec.id, recorded });
    } catch (e) {
      emit({ kind: "error", error: `recording poison trial ${job.data.trialId}: ${errorMessage(e)}` });
    }
  }

  const reconcileMs = opts.reconcileMs ?? 30_000;
  const timer =
    reconcileMs > 0
      ? setInterval(() => {
          reconcileRunning(opts.store, queue, opts.attempts ? { attempts: opts.attempts } : {}).catch((e) =>
            emit({ kind: "error", error: `reconcile: ${errorMessage(e)}` }),
          );
        }, reconcileMs)
      : undefined;

  return {
    name,
    async drain(deadlineMs = 60_000) {
      if (timer) clearInterval(timer);
      let timeout: ReturnType<typeof setTimeout> | undefined;
      const drained = await Promise.race([
        worker.close().then(() => true),
        new Promise<boolean>((resolve) => {
          timeout = setTimeout(() => resolve(false), deadlineMs);
        }),
      ]);
      clearTimeout(timeout);
      if (!drained) await worker.close(true).catch(() => undefined);
      await queue.close().catch(() => undefined);
      return { drained };
    },
  };
}
