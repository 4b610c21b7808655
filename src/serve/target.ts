import type { Environment } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import type { JsonValue } from "../core/json.ts";
import type { Registry, WorldDefinition } from "../core/registry.ts";

/** What a server (or an MCP trial) serves: a world, bare or wrapped in harness layers. */
export interface ServeTarget {
  /** The world id, or the variant id of a harnessed world. */
  id: string;
  /** The base world: its task generator, families and verifier. */
  world: WorldDefinition;
  /** The variant spec (`{world, layers}`) when harnessed. */
  variant?: JsonValue;
  /** A fresh environment, not yet reset. */
  create(): Environment;
  /** An environment restored from what one of `create()`'s returned by `saveState()` (forks); absent: not forkable. */
  restore?(state: JsonValue): Environment;
}

/** What a harness gives for a variant spec: its id, base world id, and an environment factory. */
export interface VariantEnvironment {
  id: string;
  world: string;
  create(): Environment;
}

/** Builds a variant's environment from its spec; the harness supplies it (injected, so serving does not depend on it). */
export type VariantEnvironmentFactory = (variant: JsonValue, registry: Registry) => VariantEnvironment;

export function worldTarget(world: WorldDefinition): ServeTarget {
  return { id: world.id, world, create: () => world.create(), restore: (state) => world.restore(state) };
}

/** The target for `--world` and optional `--variant`. A variant without a harness is a config error. */
export function resolveTarget(
  registry: Registry,
  worldId: string | undefined,
  variant?: JsonValue,
  environmentFor?: VariantEnvironmentFactory,
): ServeTarget {
  if (variant === undefined) {
    if (!worldId) throw configError("missing_world", "give --world <id> (or --variant)");
    return worldTarget(registry.world(worldId));
  }
  if (!environmentFor) {
    throw configError("variants_unsupported", "--variant needs the harness layer, which is not available");
  }
  const built = environmentFor(variant, registry);
  const world = registry.world(built.world);
  if (worldId && registry.world(worldId).id !== world.id) {
    throw configError("variant_world_mismatch", `variant is built on ${world.id}, not ${worldId}`);
  }
  return { id: built.id, world, variant, create: () => built.create() };
}
