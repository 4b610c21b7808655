import type { ResolveAgent } from "../agents/resolve.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import type { Registry, WorldDefinition } from "../core/registry.ts";
import type { Harness } from "../harness/harness.ts";

/**
 * The worlds and variant specs the curriculum samples from: a world by id, and the harness's reading
 * of a variant `{world, layers}` (its id, its base world). A `Gym` has them.
 */
export interface GymWorlds {
  world(id: string): WorldDefinition;
  readonly harness: Pick<Harness, "variantId" | "normalize">;
}

/**
 * The parts of a gym the curriculum uses, and no more (a `Gym` has them all; the composition root
 * passes one): its worlds and variants, what the runner needs to play a trial, the agent resolver,
 * and the gym as plain JSON for the thread that pre-generates tasks.
 */
export interface CurriculumGym extends GymWorlds {
  runOptions(): { registry: Registry; environment: EnvironmentFactory };
  resolveAgent: ResolveAgent;
  /** The gym's description (`gym.describe()`), from which the generation thread rebuilds it. */
  describe(): object;
}
