import type { Agent, TaskRequest } from "../core/contracts.ts";
import type { WorldDefinition } from "../core/registry.ts";
import type { Rng } from "../core/rng.ts";
import type { Learner } from "../learners/learner.ts";
import { type EpisodeParts, type PlayOptions, playEpisodes } from "./episodes.ts";

export interface TrainOptions extends Omit<PlayOptions, "firstIndex"> {
  /** Where training tasks come from: a family, difficulty and seed per episode (default: uniform, below). */
  next?: (rng: Rng) => TaskRequest;
}

/** A training task drawn uniformly: any family, any of its difficulties, a seed in [1, 1e6]. */
export function uniformTask(world: WorldDefinition): (rng: Rng) => TaskRequest {
  return (rng) => {
    const family = rng.pick(world.families);
    return { family: family.name, difficulty: rng.pick(family.difficulties), seed: rng.int(1, 1_000_000) };
  };
}

/** Every family at each of `difficulties` (those it has) with each of `seeds`: a fixed evaluation set. */
export function evaluationSet(
  world: WorldDefinition,
  difficulties: readonly number[],
  seeds: readonly number[],
): TaskRequest[] {
  const out: TaskRequest[] = [];
  for (const f of world.families)
    for (const d of difficulties)
      if (f.difficulties.includes(d))
        for (const seed of seeds) out.push({ family: f.name, difficulty: d, seed });
  return out;
}

/**
 * Trains `learner` for `episodes` episodes on `world` (tasks drawn with `tasks`), through the runner's
 * pipeline, in order; returns the training pass rate.
 */
export async function trainLearner(
  parts: EpisodeParts,
  world: WorldDefinition,
  learner: Learner,
  episodes: number,
  tasks: Rng,
  options: TrainOptions = {},
): Promise<number> {
  const next = options.next ?? uniformTask(world);
  const requests = Array.from({ length: episodes }, () => next(tasks));
  const outcomes = await playEpisodes(parts, world, learner, requests, options);
  return episodes === 0 ? 0 : outcomes.filter((o) => o === "passed").length / episodes;
}

/** The pass rate of `agent` on `requests`; a learner plays them frozen (then goes back as it was). */
export async function passRate(
  parts: EpisodeParts,
  world: WorldDefinition,
  agent: Learner | Agent,
  requests: readonly TaskRequest[],
  options: PlayOptions = {},
): Promise<number> {
  const learner = "frozen" in agent ? agent : undefined;
  const was = learner?.frozen;
  if (learner) learner.frozen = true;
  try {
    const outcomes = await playEpisodes(parts, world, agent, requests, {
      experimentId: "evaluate",
      ...options,
    });
    return requests.length === 0 ? 0 : outcomes.filter((o) => o === "passed").length / requests.length;
  } finally {
    if (learner && was !== undefined) learner.frozen = was;
  }
}
