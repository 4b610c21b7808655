import type { ResolvedAgent } from "../agents/resolve.ts";
import type { TrialRecord, TrialSpec } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import { errorMessage, ProvingError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import type { Registry } from "../core/registry.ts";
import type { StartStates } from "../runner/clean-start.ts";
import { openExperiment } from "../runner/open-experiment.ts";
import { runTrial } from "../runner/trial.ts";
import { unranRecord } from "../runner/trial-record.ts";
import type { Store } from "../store/store.ts";
import { TrialWriter } from "../store/trial-writer.ts";

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
}

/**
 * Runs planned trials in order, one at a time, recording them the way `runExperiment` does: the
 * experiment and these specs go into the manifest before any of them runs (so each counts, `missing`
 * should the process die), then each record is saved. Specs already recorded are read back, not re-run.
 */
export async function runSpecs(specs: readonly TrialSpec[], opts: RunSpecsOptions): Promise<TrialRecord[]> {
  const { store } = opts;
  let recorded = new Set<string>();
  if (store && specs.length) {
    const experimentId = specs[0].experimentId;
    recorded = await openExperiment(
      store,
      {
        id: experimentId,
        config: opts.experiment?.config ?? { id: experimentId },
        createdAt: opts.experiment?.createdAt ?? new Date().toISOString(),
      },
      specs,
    );
  }
  const writer = store ? new TrialWriter(store) : undefined;
  const out: TrialRecord[] = [];
  for (const spec of specs) {
    if (opts.signal?.aborted) break;
    const old = recorded.has(spec.id) ? await store?.getTrial(spec.id) : undefined;
    const record = old ?? (await runOne(spec, opts));
    if (!old && writer) {
      writer.add(record);
      await writer.flush();
    }
    out.push(record);
  }
  return out;
}

async function runOne(spec: TrialSpec, opts: RunSpecsOptions): Promise<TrialRecord> {
  try {
    const world = opts.registry.world(spec.world);
    return await runTrial(spec, {
      world,
      agent: opts.agent.forWorld(world),
      ...(opts.environment ? { environment: opts.environment } : {}),
      ...(opts.startStates ? { startStates: opts.startStates } : {}),
    });
  } catch (err) {
    const fault = err instanceof ProvingError ? err.fault : "internal";
    return unranRecord(spec, "infra_error", `cannot start the trial: ${errorMessage(err)}`, fault);
  }
}
