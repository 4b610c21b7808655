export { type RedisConnectionOptions, redisConnection } from "./connection.ts";
export { type QueuedRunOptions, type QueuedRunResult, runQueuedExperiment } from "./coordinator.ts";
export {
  type QueuedExperimentStatus,
  queuedExperimentStatus,
  type WorkerTally,
} from "./experiment-status.ts";
export { progressOf } from "./progress-of.ts";
export { type QueueSchedulerOptions, queueScheduler } from "./queue-scheduler.ts";
export { type QueuedTrialResult, QueuedTrialRunner, type QueuedTrialRunnerOptions } from "./queued-trial.ts";
export { type ReconcileResult, reconcileExperiment, reconcileRunning } from "./reconcile.ts";
export { createRedisRateLimit, type RedisRateLimit, type RedisRateLimitOptions } from "./redis-rate-limit.ts";
export {
  DEFAULT_ATTEMPTS,
  enqueueTrials,
  openTrialQueue,
  TRIAL_QUEUE,
  type TrialJobData,
  type TrialQueueOptions,
} from "./trial-queue.ts";
export {
  startTrialWorker,
  type TrialWorker,
  type TrialWorkerEvent,
  type TrialWorkerOptions,
} from "./trial-worker.ts";
