import os from "node:os";
import { type ResolvedAgent, resolveAgent } from "../agents/resolve.ts";
import type { AgentRef, Outcome, TrialRecord, TrialSpec } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import type { Registry } from "../core/registry.ts";
import { summarizeTrial } from "../report/trial-summary.ts";
import type { Store, TrialSummary } from "../store/store.ts";
import { TrialWriter } from "../store/trial-writer.ts";
import type { ExperimentConfig } from "./experiment.ts";
import { expandManifest, type PlannedVariant } from "./manifest.ts";
import { type EnvironmentFactory, runTrial } from "./trial.ts";

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

export async function resolveAgents(
  config: ExperimentConfig,
  registry: Registry,
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
  const agents = opts.agents ?? (await resolveAgents(config, opts.registry, cwd));
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
  if (store) {
    const stored = { ...config, id: experimentId } as unknown as JsonObject;
    await store.createExperiment(
      { id: experimentId, config: stored, createdAt: now().toISOString() },
      { ifNotExists: true },
    );
    await store.writeManifest(experimentId, manifest);
    recorded = await store.recordedTrialIds(experimentId);
    await store.setExperimentStatus(experimentId, "running");
  }
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
  const writer = store ? new TrialWriter(store, { batchSize: 64 }) : undefined;
  let lastFlush = Date.now();
  let next = 0;
  const concurrency = Math.max(1, opts.concurrency ?? config.concurrency ?? os.availableParallelism());

  const worker = async () => {
    while (next < todo.length && !opts.signal?.aborted) {
      const spec = todo[next++];
      const world = opts.registry.world(spec.world);
      const agent = byAgent.get(spec.agent.id)!.forWorld(world);
      const record = await runTrial(spec, {
        world,
        agent,
        ...(opts.environment ? { environment: opts.environment } : {}),
      });
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
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, todo.length)) }, worker));
  } finally {
    await writer?.flush();
  }
  const interrupted = next < todo.length;
  let trials: TrialSummary[];
  if (store) {
    await store.setExperimentStatus(experimentId, interrupted ? "interrupted" : "completed");
    const rows = new Map((await store.listTrials(experimentId)).map((t) => [t.trialId, t]));
    trials = manifest.map((spec) => rows.get(spec.id) ?? missingSummary(spec));
  } else {
    trials = manifest.map((spec) => results.get(spec.id) ?? missingSummary(spec));
  }
  return {
    experimentId,
    config: { ...config, id: experimentId },
    manifest,
    trials,
    ranNow: progress.done - recorded.size,
    interrupted,
  };
}

/** The row of a planned trial that has no record: it counts, as `missing`. */
export function missingSummary(spec: TrialSpec): TrialSummary {
  return {
    trialId: spec.id,
    experimentId: spec.experimentId,
    index: spec.index,
    world: spec.world,
    ...(spec.variantId ? { variantId: spec.variantId } : {}),
    family: spec.family,
    difficulty: spec.difficulty,
    agent: spec.agent.id,
    seed: spec.seed,
    repeat: spec.repeat,
    outcome: "missing",
    reason: "planned, never ran",
    passed: null,
    score: null,
    violations: [],
    steps: 0,
    stats: { steps: 0, virtualSeconds: 0, wallMs: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 },
    trajectoryHash: "",
    startedAt: "",
    finishedAt: "",
  };
}
