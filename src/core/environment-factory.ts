import type { Environment, TrialSpec } from "./contracts.ts";
import type { WorldDefinition } from "./registry.ts";

/** How the runner builds the environment of a trial (the bare world, or a harnessed variant). */
export type EnvironmentFactory = (spec: TrialSpec, world: WorldDefinition) => Environment;

/** The bare world of the trial, no layers. */
export const bareWorld: EnvironmentFactory = (_spec, world) => world.create();
