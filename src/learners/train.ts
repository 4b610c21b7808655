/**
 * Training and frozen evaluation of a learner on one world, with the world directly (no runner):
 * training tasks drawn with an injected RNG from the families and difficulties given; evaluation on
 * a fixed list of task requests with the learner frozen (greedy, no updates).
 */
import type { TaskRequest } from "../core/contracts.ts";
import type { WorldDefinition } from "../core/registry.ts";
import type { Rng } from "../core/rng.ts";
import type { Learner } from "./learner.ts";
import { playEpisode } from "./play-episode.ts";

export interface TrainOptions {
  /** Where training tasks come from: a family, difficulty and seed per episode (default: uniform, below). */
  next?: (rng: Rng) => TaskRequest;
  /** Most actions per episode (default 60). */
  maxSteps?: number;
}

/** A training task drawn uniformly: any family, any of its difficulties, a seed in [1, 1e6]. */
export function uniformTask(world: WorldDefinition): (rng: Rng) => TaskRequest {
  return (rng) => {
    const family = rng.pick(world.families);
    return { family: family.name, difficulty: rng.pick(family.difficulties), seed: rng.int(1, 1_000_000) };
  };
}

/** Trains `learner` for `episodes` episodes on `world`; returns the training pass rate. */
export async function trainLearner(
  world: WorldDefinition,
  learner: Learner,
  episodes: number,
  tasks: Rng,
  options: TrainOptions = {},
): Promise<number> {
  const next = options.next ?? uniformTask(world);
  let passed = 0;
  for (let i = 0; i < episodes; i++) {
    const request = next(tasks);
    const task = world.generateTask(request);
    const played = await playEpisode(world.create(), task, request.seed, learner, {
      maxSteps: options.maxSteps,
    });
    if (played.outcome === "passed") passed++;
  }
  return episodes === 0 ? 0 : passed / episodes;
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

/** The pass rate of `agent` on `requests`; a learner plays them frozen (then goes back as it was). */
export async function passRate(
  world: WorldDefinition,
  agent: Learner | import("../core/contracts.ts").Agent,
  requests: readonly TaskRequest[],
  options: { maxSteps?: number } = {},
): Promise<number> {
  const learner = "frozen" in agent ? agent : undefined;
  const was = learner?.frozen;
  if (learner) learner.frozen = true;
  let passed = 0;
  try {
    for (const request of requests) {
      const task = world.generateTask(request);
      const played = await playEpisode(world.create(), task, request.seed, agent, options);
      if (played.outcome === "passed") passed++;
    }
  } finally {
    if (learner && was !== undefined) learner.frozen = was;
  }
  return requests.length === 0 ? 0 : passed / requests.length;
}
