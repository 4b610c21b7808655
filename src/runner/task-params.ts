import type { TaskRequest } from "../core/contracts.ts";
import { configError, ProvingError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import type { Registry, WorldDefinition } from "../core/registry.ts";
import type { ExperimentConfig } from "./experiment.ts";

/** The task params one planned world plays with, and where they came from (for error messages). */
export interface WorldTaskParams {
  /** `params` with the world's `worldParams` entry merged over it; absent when the experiment gives neither. */
  params?: JsonObject;
  /** `params`, `worldParams["KEY"]` or `params + worldParams["KEY"]`. */
  source: string;
}

/**
 * The task params of each planned world (by registered id): the experiment's `params` with the
 * world's `worldParams` entry merged over it (key by key; the world's value wins). A `worldParams`
 * key resolves as the experiment's `worlds` do (`registry.world`: `name@version`, or a bare name for
 * the newest version). A key naming no registered world is `unknown_world`; one naming a world the
 * experiment does not plan, or two keys naming the same world, is `bad_experiment`.
 */
export function plannedTaskParams(
  config: Pick<ExperimentConfig, "params" | "worldParams">,
  registry: Registry,
  plannedWorlds: readonly string[],
): Map<string, WorldTaskParams> {
  const planned = [...new Set(plannedWorlds.map((w) => registry.world(w).id))];
  const perWorld = new Map<string, { key: string; params: JsonObject }>();
  for (const [key, params] of Object.entries(config.worldParams ?? {})) {
    const id = worldIdOf(registry, key);
    if (!planned.includes(id)) {
      throw configError(
        "bad_experiment",
        `worldParams["${key}"]: ${id} is not one of the worlds this experiment plans (${planned.join(", ")})`,
      );
    }
    const other = perWorld.get(id);
    if (other) {
      throw configError(
        "bad_experiment",
        `worldParams: "${other.key}" and "${key}" both name ${id}; give its params under one key`,
      );
    }
    perWorld.set(id, { key, params });
  }
  const base = config.params ?? {};
  const result = new Map<string, WorldTaskParams>();
  for (const id of planned) {
    const own = perWorld.get(id);
    const params = { ...base, ...(own?.params ?? {}) };
    const sources = [
      ...(Object.keys(base).length ? ["params"] : []),
      ...(own ? [`worldParams["${own.key}"]`] : []),
    ];
    // present whenever the experiment gives any (even `{}`): manifests planned before worldParams existed
    // expand again to the same specs, so their resume finds no manifest_conflict
    result.set(id, {
      ...(config.params !== undefined || own ? { params } : {}),
      source: sources.join(" + ") || "params",
    });
  }
  return result;
}

function worldIdOf(registry: Registry, key: string): string {
  try {
    return registry.world(key).id;
  } catch (err) {
    if (err instanceof ProvingError)
      throw new ProvingError(err.code, `worldParams["${key}"]: ${err.message}`, { cause: err });
    throw err;
  }
}

/**
 * Generates one task of a world's family with the given params, so a param the world does not tune
 * (`unknown_param`) or a bad value fails the plan up front, not every trial at its start. Config
 * errors are rethrown with the same code, prefixed with the world and where the params came from.
 */
export function checkTaskParams(
  world: WorldDefinition,
  request: TaskRequest & { params: JsonObject },
  source: string,
): void {
  try {
    world.generateTask(request);
  } catch (err) {
    if (err instanceof ProvingError && err.fault === "config") {
      throw new ProvingError(err.code, `${source} for ${world.id}: ${err.message}`, {
        cause: err,
        details: err.details,
      });
    }
    throw err;
  }
}
