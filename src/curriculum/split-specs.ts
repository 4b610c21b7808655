import type { AgentRef, Budget, Split, TrialSpec } from "../core/contracts.ts";
import type { JsonValue } from "../core/json.ts";
import { trialId } from "../runner/manifest.ts";
import type { TaskKey } from "./task-key.ts";

/** A planned task: a key, its variant spec when it is one, and a seed. */
export interface PlannedTask {
  key: TaskKey;
  variant?: JsonValue;
  seed: number;
}

/**
 * Trial specs for planned tasks, in order, indexes from `firstIndex`. `repeat` tells apart the same
 * task run again (the n-th evaluation of a regression split, the n-th episode), so every trial id differs.
 * `split` is the split the trials belong to: the world generates their tasks with it, so every record
 * carries its real split (the trial ids do not depend on it).
 */
export function plannedSpecs(
  tasks: readonly PlannedTask[],
  opts: {
    experimentId: string;
    agent: AgentRef;
    budget: Budget;
    split: Split;
    firstIndex?: number;
    repeat?: number;
  },
): TrialSpec[] {
  const first = opts.firstIndex ?? 0;
  return tasks.map((t, i) => {
    const repeat = opts.repeat ?? 0;
    const id = trialId({
      experimentId: opts.experimentId,
      world: t.key.world,
      ...(t.key.variant ? { variantId: t.key.variant } : {}),
      family: t.key.family,
      difficulty: t.key.difficulty,
      seed: t.seed,
      repeat: opts.repeat === undefined ? first + i : repeat,
      agent: opts.agent.id,
    });
    return {
      schemaVersion: 1,
      id,
      experimentId: opts.experimentId,
      index: first + i,
      world: t.key.world,
      ...(t.variant !== undefined ? { variant: t.variant, variantId: t.key.variant } : {}),
      family: t.key.family,
      difficulty: t.key.difficulty,
      seed: t.seed,
      repeat: opts.repeat === undefined ? first + i : repeat,
      split: opts.split,
      agent: opts.agent,
      budget: { ...opts.budget },
    };
  });
}
