import type { ResolvedAgent } from "../agents/resolve.ts";
import type { Budget, TrialRecord } from "../core/contracts.ts";
import type { Store } from "../store/store.ts";
import type { CurriculumGym, GymWorlds } from "./curriculum-gym.ts";
import { heldoutManifest, regressionManifest } from "./regression-manifest.ts";
import { runSpecs } from "./run-specs.ts";
import type { SplitFile, SplitName } from "./split-file.ts";
import { type PlannedTask, plannedSpecs } from "./split-specs.ts";
import { buildTaskSpace } from "./task-space.ts";

export interface SplitRunResult {
  experimentId: string;
  split: SplitName;
  /** The frozen split's manifest hash (regression, heldout); absent for the dynamic split. */
  manifestHash?: string;
  records: TrialRecord[];
}

/**
 * The planned tasks of one split: the regression split's frozen list, the held-out tasks, or the
 * dynamic space's keys × `seeds` (a plain sweep, not adapted: `curriculum run` adapts it).
 */
export function splitTasks(split: SplitFile, name: SplitName, gym: GymWorlds, seeds: number[] = [1]) {
  const space = buildTaskSpace(split, gym);
  if (name === "regression") {
    const m = regressionManifest(split, gym);
    return { tasks: m.tasks as PlannedTask[], hash: m.hash as string | undefined };
  }
  if (name === "heldout") {
    const m = heldoutManifest(split, gym, space.heldout);
    return { tasks: m.tasks as PlannedTask[], hash: m.hash as string | undefined };
  }
  return {
    tasks: space.dynamic.flatMap((e) =>
      seeds.map((seed) => ({ key: e.key, ...(e.variant !== undefined ? { variant: e.variant } : {}), seed })),
    ),
    hash: undefined,
  };
}

/** Runs one split of a split file as an experiment (`proving run --split NAME`), recorded like any run. */
export async function runSplit(
  split: SplitFile,
  name: SplitName,
  opts: {
    gym: Pick<CurriculumGym, "world" | "harness" | "runOptions">;
    agent: ResolvedAgent;
    experimentId: string;
    budget: Budget;
    seeds?: number[];
    store?: Store;
    signal?: AbortSignal;
    createdAt?: string;
  },
): Promise<SplitRunResult> {
  const { tasks, hash } = splitTasks(split, name, opts.gym, opts.seeds);
  const specs = plannedSpecs(tasks, {
    experimentId: opts.experimentId,
    agent: opts.agent.ref,
    budget: opts.budget,
    split: name,
    repeat: 0,
  });
  const run = opts.gym.runOptions();
  const records = await runSpecs(specs, {
    registry: run.registry,
    environment: run.environment,
    agent: opts.agent,
    ...(opts.store ? { store: opts.store } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    experiment: {
      config: {
        id: opts.experimentId,
        kind: "split",
        split: split.name,
        name,
        ...(hash ? { manifest_hash: hash } : {}),
      },
      createdAt: opts.createdAt ?? new Date().toISOString(),
    },
    startStates: new Map(),
  });
  if (opts.store)
    await opts.store.setExperimentStatus(
      opts.experimentId,
      records.length < specs.length ? "interrupted" : "completed",
    );
  return { experimentId: opts.experimentId, split: name, ...(hash ? { manifestHash: hash } : {}), records };
}
