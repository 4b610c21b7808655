import os from "node:os";
import { LimiterPool } from "../agents/llm/limiter.ts";
import { PriceTable } from "../agents/llm/prices.ts";
import { AgentResolver, type ResolveAgent, type ResolvedAgent } from "../agents/resolve.ts";
import type { Agent, AgentRef, Outcome, TrialRecord, TrialSpec } from "../core/contracts.ts";
import { bareWorld, type EnvironmentFactory } from "../core/environment-factory.ts";
import { configError, errorMessage, ProvingError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import type { Registry, WorldDefinition } from "../core/registry.ts";
import { manifestRows, summarizeTrial, type TrialSummary } from "../core/trial-summary.ts";
import type { HeldLease } from "../store/experiment-lease.ts";
import type { Store } from "../store/store.ts";
import { TrialWriter } from "../store/trial-writer.ts";
import type { StartStates } from "./clean-start.ts";
import { EnvironmentPool } from "./env-pool.ts";
import type { ExperimentConfig } from "./experiment.ts";
import { expandManifest, type PlannedVariant } from "./manifest.ts";
import { openLeasedExperiment } from "./open-experiment.ts";
import { runTrial } from "./trial.ts";
import { unranRecord } from "./trial-record.ts";

export interface Progress {
  planned: number;
  done: number;
  passed: number;
  violated: number;
  errors: number;
  outcomes: Partial<Record<Outcome, number>>;
}

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
}

export function newExperimentId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `exp-${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Scripted policies and module agents only: the resolver of a gym without agent kinds. */
const scriptedOrModule: ResolveAgent = (spec, ctx) =>
  new AgentResolver().resolve(spec, {
    ...ctx,
    env: {},
    prices: new PriceTable(),
    limiters: new LimiterPool(),
  });

export async function resolveAgents(
  config: ExperimentConfig,
  registry: Registry,
  resolveAgent: ResolveAgent,
  cwd: string,
): Promise<ResolvedAgent[]> {
  const worlds = config.worlds.map((w) => registry.world(w));
  const agents: ResolvedAgent[] = [];
  for (const spec of config.agents) agents.push(await resolveAgent(spec, { cwd, worlds }));
  const seen = new Set<string>();
  for (const a of agents) {
    if (seen.has(a.ref.id)) throw configError("duplicate_agent", `two agents have the id "${a.ref.id}"`);
    seen.add(a.ref.id);
  }
  return agents;
}

/** Plans an experiment (manifest written first), runs what is not yet recorded, records every trial. */
export async function runExperiment(config: ExperimentConfig, opts: RunOptions): Promise<ExperimentResult> {
  const now = opts.now ?? (() => new Date());
  const cwd = opts.cwd ?? process.cwd();
  const agents =
    opts.agents ?? (await resolveAgents(config, opts.registry, opts.resolveAgent ?? scriptedOrModule, cwd));
  const experimentId = config.id ?? newExperimentId(now());
  const refs: AgentRef[] = agents.map((a) => a.ref);
  const variants = config.variants?.length ? opts.planVariants?.(config) : undefined;
  if (config.variants?.length && !variants) {
    throw configError(
      "variants_unsupported",
      "this experiment lists variants, but no harness was given to plan them",
    );
  }
  const manifest = expandManifest(experimentId, config, refs, opts.registry, variants);
  const store = opts.store;
  let recorded = new Set<string>();
  let lease: HeldLease | undefined;
  if (store) {
    const stored = { ...config, id: experimentId } as unknown as JsonObject;
    ({ recorded, lease } = await openLeasedExperiment(
      store,
      { id: experimentId, config: stored, createdAt: now().toISOString() },
      manifest,
      {
        ...(opts.force ? { force: true } : {}),
        ...(opts.leaseMs !== undefined ? { ttlMs: opts.leaseMs } : {}),
      },
    ));
  }
  try {
    return await runPlannedTrials();
  } finally {
    await lease?.release();
  }
  async function runPlannedTrials(): Promise<ExperimentResult> {
    const todo = manifest.filter((s) => !recorded.has(s.id));
    const byAgent = new Map(agents.map((a) => [a.ref.id, a]));
    const progress: Progress = {
      planned: manifest.length,
      done: recorded.size,
      passed: 0,
      violated: 0,
      errors: 0,
      outcomes: {},
    };
    const results = new Map<string, TrialSummary>();
    const startStates: StartStates = new Map();
    const writer = store ? new TrialWriter(store, { batchSize: 64 }) : undefined;
    let lastFlush = Date.now();
    let next = 0;
    const concurrency = Math.max(1, opts.concurrency ?? config.concurrency ?? os.availableParallelism());

    const worker = async () => {
      const pool = opts.reuseEnvironments ? new EnvironmentPool(opts.environment ?? bareWorld) : undefined;
      // another process took the lease over (--force): this one starts nothing more
      while (next < todo.length && !opts.signal?.aborted && !lease?.lost) {
        const spec = todo[next++];
        const record = await runPlanned(spec);
        results.set(spec.id, summarizeTrial(record));
        progress.done++;
        progress.outcomes[record.outcome] = (progress.outcomes[record.outcome] ?? 0) + 1;
        if (record.outcome === "passed") progress.passed++;
        if (record.verdict?.violations.length) progress.violated++;
        if (record.outcome === "agent_error" || record.outcome === "infra_error") progress.errors++;
        if (writer) {
          writer.add(record);
          if (Date.now() - lastFlush >= 50) {
            lastFlush = Date.now();
            await writer.flush();
          }
        }
        opts.onTrial?.(record, progress);
      }
      async function runPlanned(spec: TrialSpec): Promise<TrialRecord> {
        let world: WorldDefinition;
        let agent: Agent;
        try {
          world = opts.registry.world(spec.world);
          const resolved = byAgent.get(spec.agent.id);
          if (!resolved) throw configError("unknown_agent", `no agent "${spec.agent.id}" was resolved`);
          agent = resolved.forWorld(world);
        } catch (err) {
          // a planned trial that cannot even start still counts, with its reason
          const fault = err instanceof ProvingError ? err.fault : "internal";
          return unranRecord(spec, "infra_error", `cannot start the trial: ${errorMessage(err)}`, fault);
        }
        return runTrial(spec, {
          world,
          agent,
          ...(opts.environment ? { environment: opts.environment } : {}),
          ...(pool ? { pool } : {}),
          ...(opts.checkCleanStart === false ? { checkCleanStart: false } : { startStates }),
          ...(opts.checkAfterEnd === false ? { checkAfterEnd: false } : {}),
        });
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, todo.length)) }, worker));
    } catch (err) {
      // the store failed under us: what was not committed stays missing and a resume picks it up
      if (store) await store.setExperimentStatus(experimentId, "interrupted").catch(() => undefined);
      throw err;
    } finally {
      await writer?.flush();
    }
    const interrupted = next < todo.length;
    let recordedRows: Iterable<TrialSummary> = results.values();
    if (store) {
      await store.setExperimentStatus(experimentId, interrupted ? "interrupted" : "completed");
      recordedRows = await store.listTrials(experimentId);
    }
    const trials = manifestRows(manifest, recordedRows).rows;
    return {
      experimentId,
      config: { ...config, id: experimentId },
      manifest,
      trials,
      ranNow: progress.done - recorded.size,
      interrupted,
    };
  }
}
