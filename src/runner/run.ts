import os from "node:os";
import { type ResolveAgent, type ResolvedAgent, resolveScriptedOrModule } from "../agents/resolve.ts";
import type { TrialRecord, TrialSpec } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import type { Registry } from "../core/registry.ts";
import type { TrialSummary } from "../core/trial-summary.ts";
import type { Store } from "../store/store.ts";
import type { TrialAdmission } from "./admission.ts";
import { executePlan } from "./executor.ts";
import type { ExperimentConfig } from "./experiment.ts";
import type { PlannedVariant } from "./manifest.ts";
import { MemoryRecorder } from "./memory-recorder.ts";
import { planExperiment, resolveAgents } from "./plan.ts";
import type { Progress } from "./progress.ts";
import { StoreRecorder } from "./store-recorder.ts";
import { poolScheduler } from "./trial-scheduler.ts";

export { newExperimentId, resolveAgents } from "./plan.ts";
export type { Progress } from "./progress.ts";

export interface RunOptions {
  registry: Registry;
  /**
   * Resolves `config.agents`: the gym's resolver (`gym.runOptions()`). Without one, only scripted
   * policies and module agents resolve (no agent kinds); not used when `agents` is given.
   */
  resolveAgent?: ResolveAgent;
  /** Where the experiment, its manifest and every trial are written. Without one, results stay in memory. */
  store?: Store;
  concurrency?: number;
  cwd?: string;
  /** Builds each trial's environment (the harness uses this for variants). */
  environment?: EnvironmentFactory;
  /** Each trial starts once admitted, outside its budget (a remote target's `admission`: its server's sessions). */
  admission?: TrialAdmission;
  /** Expands `config.variants` into planned variants (the harness supplies it). */
  planVariants?: (config: ExperimentConfig) => PlannedVariant[];
  /** Resolved agents (skips resolving `config.agents`). */
  agents?: ResolvedAgent[];
  onTrial?: (record: TrialRecord, progress: Progress) => void;
  /** Stop starting new trials; what did not run stays `missing`. */
  signal?: AbortSignal;
  /** Creation time and id source (injected for tests). */
  now?: () => Date;
  /**
   * Let each worker reuse its world instances across trials (reset between them) instead of building
   * one per trial. Off by default; the clean-start check catches a reset that does not clean.
   */
  reuseEnvironments?: boolean;
  /** Skip the clean-start checks (fresh reference instance, cross-trial start states). Default: checked. */
  checkCleanStart?: boolean;
  /** Skip the after-episode check (one timer turn per trial, watching for callbacks that fire late). */
  checkAfterEnd?: boolean;
  /**
   * With a store, the run holds the experiment's lease (`experiment_live` if another live process
   * runs or resumes it): `force` takes it over from a dead one. `leaseMs` is its length without a
   * heartbeat (default 30000).
   */
  force?: boolean;
  leaseMs?: number;
}

export interface ExperimentResult {
  experimentId: string;
  config: ExperimentConfig;
  manifest: TrialSpec[];
  /** One row per planned trial, in manifest order; planned trials that never ran are `missing`. */
  trials: TrialSummary[];
  /** Trials run by this call (a resume runs only what was missing). */
  ranNow: number;
  interrupted: boolean;
  /** The policies the run's learners end with (`saved`: written to the store), when any agent learns. */
  policies?: AgentPolicy[];
}

/** The policy an agent ends a run with (a learner's content hash). */
export interface AgentPolicy {
  agent: string;
  policy: string;
  saved: boolean;
}

/**
 * Plans an experiment (manifest written first), runs what is not yet recorded in a pool of
 * `concurrency` workers (one, in manifest order, when an agent learns across trials: `ordered`), then
 * tells each agent the run ended (`finish`), and records every trial: the executor with a pool scheduler and the store's
 * recorder (under the experiment's lease), or an in-memory one without a store.
 */
export async function runExperiment(config: ExperimentConfig, opts: RunOptions): Promise<ExperimentResult> {
  const cwd = opts.cwd ?? process.cwd();
  const agents =
    opts.agents ??
    (await resolveAgents(config, opts.registry, opts.resolveAgent ?? resolveScriptedOrModule, cwd, {
      ...(opts.store ? { policies: opts.store } : {}),
      ...(opts.now ? { now: opts.now } : {}),
    }));
  const plan = planExperiment(
    config,
    agents.map((a) => a.ref),
    { registry: opts.registry, planVariants: opts.planVariants, now: opts.now ?? (() => new Date()) },
  );
  const recorder = opts.store
    ? new StoreRecorder(opts.store, {
        lease: {
          ...(opts.force ? { force: true } : {}),
          ...(opts.leaseMs !== undefined ? { ttlMs: opts.leaseMs } : {}),
        },
      })
    : new MemoryRecorder();
  // an agent that learns across trials plays them one at a time, in manifest order
  const ordered = agents.some((a) => a.ordered);
  const concurrency = ordered ? 1 : (opts.concurrency ?? config.concurrency ?? os.availableParallelism());
  const onTrial = opts.onTrial;
  /** Tells each agent the run ended; `afterFailure`: every one is told, whatever another's `finish` throws. */
  const finishAll = async (afterFailure = false): Promise<AgentPolicy[]> => {
    const policies: AgentPolicy[] = [];
    for (const a of agents) {
      const finishing = a.finish?.({ experimentId: plan.experiment.id });
      const done = afterFailure ? await finishing?.catch(() => undefined) : await finishing;
      if (done?.policy) policies.push({ agent: a.ref.id, policy: done.policy, saved: done.saved === true });
    }
    return policies;
  };
  const execution = executePlan(plan, {
    registry: opts.registry,
    agents: new Map(agents.map((a) => [a.ref.id, a])),
    ...(opts.environment ? { environment: opts.environment } : {}),
    ...(opts.admission ? { admission: opts.admission } : {}),
    recorder,
    scheduler: poolScheduler(concurrency),
    startStates: new Map(),
    ...(opts.reuseEnvironments ? { reuseEnvironments: true } : {}),
    ...(ordered ? { replayRecorded: true } : {}),
    ...(opts.checkCleanStart === false ? { checkCleanStart: false } : {}),
    ...(opts.checkAfterEnd === false ? { checkAfterEnd: false } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(onTrial ? { onTrial: (record: TrialRecord, progress: Progress) => onTrial(record, progress) } : {}),
  });
  let result: Awaited<typeof execution>;
  try {
    result = await execution;
  } catch (err) {
    // the run failed, but it has ended for its agents all the same: each releases what it holds (a
    // module agent's process and directory) and a learner keeps what it learned; what finishing
    // throws then is second to the failure
    await finishAll(true);
    throw err;
  }
  // the run has ended for its agents: a learner saves its policy (to the store) and names it
  const policies = await finishAll();
  return {
    experimentId: plan.experiment.id,
    config: plan.config,
    manifest: [...plan.manifest],
    trials: await result.rows(),
    ranNow: result.ranNow,
    interrupted: result.interrupted,
    ...(policies.length ? { policies } : {}),
  };
}
