import { randomUUID } from "node:crypto";
import type { LimiterPool } from "../agents/llm/limiter.ts";
import type { ResolvedAgent } from "../agents/resolve.ts";
import type { TrialSpec } from "../core/contracts.ts";
import { configError, errorMessage, ProvingError } from "../core/errors.ts";
import { executePlan } from "../runner/executor.ts";
import { parseExperiment } from "../runner/experiment.ts";
import { resolveAgents } from "../runner/plan.ts";
import type { ExperimentEntry } from "../runner/recorder.ts";
import type { RunParts } from "../runner/run-parts.ts";
import { sequentialScheduler } from "../runner/trial-scheduler.ts";
import type { Store } from "../store/store.ts";
import { AttemptRecorder } from "./attempt-recorder.ts";
import type { TrialJobData } from "./trial-queue.ts";

/** What one delivery of a trial's job came to. */
export type QueuedTrialResult =
  | { status: "recorded"; outcome: string; trajectoryHash: string }
  | { status: "duplicate" }
  | { status: "already_recorded" };

interface PreparedExperiment {
  run: RunParts;
  /** The experiment as stored (the worker joins it; the coordinator planned it). */
  experiment: ExperimentEntry;
  specs: Map<string, TrialSpec>;
  agents: Map<string, ResolvedAgent>;
}

export interface QueuedTrialRunnerOptions {
  store: Store;
  /** This worker's name in the attempts table (default host:pid). */
  worker: string;
  /** Where plugin modules and module agents resolve. */
  cwd: string;
  /** The environment the rebuilt gym's agent kinds read (API keys): the worker's, given by its entry point. */
  env: Readonly<Record<string, string | undefined>>;
  now?: () => Date;
  /** The provider limiters of every gym this runner rebuilds (a pool sharing a Redis budget, say). */
  limiters?: LimiterPool;
  /**
   * Rebuilds an experiment's gym from its stored description (the gym's `loadGym`, injected by the
   * process entry point) and returns what running its trials needs.
   */
  rebuild: (
    description: unknown,
    opts: { cwd: string; env: Readonly<Record<string, string | undefined>>; limiters?: LimiterPool },
  ) => Promise<RunParts>;
}

/**
 * Runs queued trials in a worker process: rebuilds each experiment's gym from its stored description
 * (`rebuild`: the gym's `loadGym`), resolves its agents from the stored definition, and runs a trial through the runner's
 * single-trial path with a write-once record and an attempt row. Experiments are prepared once per process.
 */
export class QueuedTrialRunner {
  readonly #opts: QueuedTrialRunnerOptions;
  readonly #prepared = new Map<string, Promise<PreparedExperiment>>();

  constructor(opts: QueuedTrialRunnerOptions) {
    this.#opts = opts;
  }

  async run(job: TrialJobData, attempt: number): Promise<QueuedTrialResult> {
    const { store } = this.#opts;
    const now = this.#opts.now ?? (() => new Date());
    const prepared = await this.#prepare(job.experimentId);
    const spec = prepared.specs.get(job.trialId);
    if (!spec) {
      throw configError(
        "unknown_trial",
        `trial ${job.trialId} is not planned in experiment ${job.experimentId}`,
      );
    }
    const attemptId = randomUUID();
    const recorder = new AttemptRecorder(store, { attemptId, attempt, worker: this.#opts.worker, now });
    const { run } = prepared;
    let outcome: QueuedTrialResult = { status: "already_recorded" };
    try {
      // the runner's one pipeline, with this trial as the plan and the write-once attempt recorder
      await executePlan(
        { experiment: prepared.experiment, manifest: [spec] },
        {
          registry: run.registry,
          agents: prepared.agents,
          environment: run.environment,
          recorder,
          scheduler: sequentialScheduler(),
          onTrial: (record, _progress, inserted) => {
            outcome = inserted
              ? { status: "recorded", outcome: record.outcome, trajectoryHash: record.trajectoryHash }
              : { status: "duplicate" };
          },
        },
      );
      return outcome;
    } catch (err) {
      await store
        .endAttempt(attemptId, { endedAt: now().toISOString(), status: "failed", error: errorMessage(err) })
        .catch(() => undefined);
      throw err;
    }
  }

  #prepare(experimentId: string): Promise<PreparedExperiment> {
    let p = this.#prepared.get(experimentId);
    if (!p) {
      p = this.#load(experimentId);
      p.catch(() => this.#prepared.delete(experimentId));
      this.#prepared.set(experimentId, p);
    }
    return p;
  }

  async #load(experimentId: string): Promise<PreparedExperiment> {
    const { store, cwd, env } = this.#opts;
    const experiment = await store.getExperiment(experimentId);
    if (!experiment)
      throw new ProvingError("unknown_experiment", `no experiment ${experimentId} in the store`);
    const description = await store.getExperimentGym(experimentId);
    if (!description) {
      throw configError(
        "bad_gym",
        `experiment ${experimentId} has no stored gym description (was it run with --queue?)`,
      );
    }
    const limiters = this.#opts.limiters;
    const run = await this.#opts.rebuild(description, { cwd, env, ...(limiters ? { limiters } : {}) });
    const config = parseExperiment({ ...experiment.config, id: experimentId });
    const agents = await resolveAgents(config, run.registry, run.resolveAgent, cwd);
    const specs = new Map((await store.getManifest(experimentId)).map((s) => [s.id, s]));
    return {
      run,
      experiment: { id: experimentId, config: experiment.config, createdAt: experiment.createdAt },
      specs,
      agents: new Map(agents.map((a) => [a.ref.id, a])),
    };
  }
}
