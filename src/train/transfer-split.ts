import type { TaskRequest } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import type { WorldDefinition } from "../core/registry.ts";

/**
 * What a training experiment trains on and is evaluated on: the families training may sample, the
 * regression split (fixed tasks of those families) and the held-out split (fixed tasks of families
 * training never sees). The same world and options always give the same split.
 */
export interface TrainSplit {
  trainFamilies: string[];
  heldoutFamilies: string[];
  difficulties: number[];
  seeds: number[];
  regression: TaskRequest[];
  heldout: TaskRequest[];
}

export interface TrainSplitOptions {
  /** Families held out of training (default: `defaultHeldout(world)`); `[]` holds out nothing. */
  heldout?: readonly string[];
  /** Difficulties of the evaluation tasks (default 1, 2, 3: those each family has). */
  difficulties?: readonly number[];
  /** Task seeds of the evaluation tasks (default 9001, 9002: not the training stream's). */
  seeds?: readonly number[];
}

/** The default held-out families: every fourth of the world's families (the 4th, the 8th, ...), none of a world with fewer than 4. */
export function defaultHeldout(world: WorldDefinition): string[] {
  return world.families.filter((_, i) => i % 4 === 3).map((f) => f.name);
}

/**
 * The split of `world`: held-out families out of training; the regression split is every other
 * family at each of `difficulties` it has × `seeds`, the held-out split the same over the held-out
 * families (the layout of `evaluationSet`, labelled with their split). Unknown families are refused.
 */
export function trainSplit(world: WorldDefinition, options: TrainSplitOptions = {}): TrainSplit {
  const names = world.families.map((f) => f.name);
  const heldout = [...(options.heldout ?? defaultHeldout(world))];
  for (const f of heldout)
    if (!names.includes(f))
      throw configError("bad_flag", `--heldout ${f}: ${world.id} has no such family (${names.join(", ")})`);
  const trainFamilies = names.filter((n) => !heldout.includes(n));
  if (trainFamilies.length === 0)
    throw configError(
      "bad_flag",
      `--heldout: every family of ${world.id} is held out; nothing is left to train on`,
    );
  const difficulties = [...(options.difficulties ?? [1, 2, 3])];
  const seeds = [...(options.seeds ?? [9001, 9002])];
  const tasks = (families: readonly string[], split: "regression" | "heldout"): TaskRequest[] =>
    world.families
      .filter((f) => families.includes(f.name))
      .flatMap((f) =>
        difficulties
          .filter((d) => f.difficulties.includes(d))
          .flatMap((difficulty) => seeds.map((seed) => ({ family: f.name, difficulty, seed, split }))),
      );
  return {
    trainFamilies,
    heldoutFamilies: heldout,
    difficulties,
    seeds,
    regression: tasks(trainFamilies, "regression"),
    heldout: tasks(heldout, "heldout"),
  };
}
