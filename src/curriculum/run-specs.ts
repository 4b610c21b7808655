import type { ResolvedAgent } from "../agents/resolve.ts";
import type { TrialRecord, TrialSpec } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import type { JsonObject } from "../core/json.ts";
import type { Registry } from "../core/registry.ts";
import { executePlan } from "../runner/executor.ts";
import { MemoryRecorder } from "../runner/memory-recorder.ts";
import { StoreRecorder } from "../runner/store-recorder.ts";
import type { StartStates } from "../runner/trial-deps.ts";
import { sequentialScheduler } from "../runner/trial-scheduler.ts";
import type { Store } from "../store/store.ts";

export interface RunSpecsOptions {
  registry: Registry;
  environment?: EnvironmentFactory;
  agent: ResolvedAgent;
  /** Records the experiment (its plan written first, then each trial); without it, records stay in memory. */
  store?: Store;
  /** The experiment's stored definition and creation time (when recording). */
  experiment?: { config: JsonObject; createdAt: string };
  /** Start states shared across the run (the clean-start check's cross-trial comparison). */
  startStates?: StartStates;
  signal?: AbortSignal;
  /**
   * Leave the experiment `running` when these specs complete (the caller plans more into it and sets
   * its final status: a curriculum run's episodes and evaluations). An interrupted call still marks it.
   */
  keepRunning?: boolean;
}

/**
 * Runs planned trials of one experiment in order, one at a time, through the runner's one pipeline
 * (`executePlan` with a sequential scheduler): these specs go into the manifest before any of them
 * runs, then each record is saved. Returns the records in spec order; specs already recorded are
 * read back, not re-run; specs an abort left unrun are not returned.
 */
export async function runSpecs(specs: readonly TrialSpec[], opts: RunSpecsOptions): Promise<TrialRecord[]> {
  if (!specs.length) return [];
  const experimentId = specs[0].experimentId;
  const recorder = opts.store
    ? new StoreRecorder(opts.store, { flushEveryMs: 0, ...(opts.keepRunning ? { keepRunning: true } : {}) })
    : new MemoryRecorder({ keepRecords: true });
  const ran = new Map<string, TrialRecord>();
  await executePlan(
    {
      experiment: {
        id: experimentId,
        config: opts.experiment?.config ?? { id: experimentId },
        createdAt: opts.experiment?.createdAt ?? new Date().toISOString(),
      },
      manifest: specs,
    },
    {
      registry: opts.registry,
      agents: new Map([[opts.agent.ref.id, opts.agent]]),
      ...(opts.environment ? { environment: opts.environment } : {}),
      ...(opts.startStates ? { startStates: opts.startStates } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
      recorder,
      scheduler: sequentialScheduler(),
      onTrial: (record) => {
        ran.set(record.spec.id, record);
      },
    },
  );
  const out: TrialRecord[] = [];
  for (const spec of specs) {
    const record = ran.get(spec.id) ?? (await recorder.read(spec.id));
    if (!record) break;
    out.push(record);
  }
  return out;
}
