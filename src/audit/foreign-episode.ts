/**
 * Episodes of a server we did not write, for the audit's own checks (session isolation, the
 * reward-file probe): a fresh environment from the runner's factory, reset on a seed's task.
 */
import type { Environment, ResetOptions } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import type { WorldDefinition } from "../core/registry.ts";

/** What plays a foreign server's episodes: its world, its environment factory, and how to let one go. */
export interface ForeignPlay {
  world: WorldDefinition;
  environment: EnvironmentFactory;
  /** Called for each environment a check is done with (a remote one: `env.close()`). */
  dispose?: (env: Environment) => void | Promise<void>;
}

/** A fresh environment of the server (`label` names its trial). */
export const createEpisode = (play: ForeignPlay, label: string): Environment =>
  play.environment({ id: label } as never, play.world);

/** The reset of seed `seed`: the world's task for it (the server builds its own from the seed). */
export function resetOptions(world: WorldDefinition, seed: number): ResetOptions {
  const task = world.generateTask({ family: world.families[0]!.name, difficulty: 1, seed });
  return { task, seed };
}
