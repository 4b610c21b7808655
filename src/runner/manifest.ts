import type { AgentRef, Budget, TrialSpec } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import { hashJson } from "../core/hash.ts";
import type { JsonValue } from "../core/json.ts";
import type { Registry } from "../core/registry.ts";
import type { ExperimentConfig } from "./experiment.ts";
import { checkTaskParams, plannedTaskParams } from "./task-params.ts";

/** A variant to plan trials for: the bare world (no `variant`) or a harnessed one. */
export interface PlannedVariant {
  world: string;
  variant?: JsonValue;
  variantId?: string;
}

/** Stable trial id: the same experiment and cell always give the same id (so resume is idempotent). */
export function trialId(parts: {
  experimentId: string;
  world: string;
  variantId?: string;
  family: string;
  difficulty: number;
  seed: number;
  repeat: number;
  agent: string;
}): string {
  return `t-${hashJson(parts, 16)}`;
}

/**
 * The most planned trials one experiment may have. The manifest is built in memory and written to the
 * store before any trial runs, so a plan past this is refused up front (`manifest_too_large`) instead
 * of running out of memory; split a larger study into several experiments.
 */
export const MAX_MANIFEST_TRIALS = 1_000_000;

/** How many trials `expandManifest` would plan, without building them. */
export function plannedTrialCount(
  config: ExperimentConfig,
  agents: number,
  registry: Registry,
  variants: PlannedVariant[] = config.worlds.map((world) => ({ world })),
): number {
  let total = 0;
  for (const v of variants) {
    const families = config.families?.length ?? registry.world(v.world).families.length;
    total += families * config.difficulties.length * config.trials * agents * config.repeats;
  }
  return total;
}

/**
 * Expands an experiment into its manifest: worlds (or variants) × families × difficulties × seeds ×
 * agents × repeats, each a planned trial with its own id. Every planned trial stays in the denominator.
 * Each trial's spec records the task params its world plays with (`params` merged with the world's
 * `worldParams`), checked up front against one generated task per world and family.
 */
export function expandManifest(
  experimentId: string,
  config: ExperimentConfig,
  agents: AgentRef[],
  registry: Registry,
  variants: PlannedVariant[] = config.worlds.map((world) => ({ world })),
): TrialSpec[] {
  const planned = plannedTrialCount(config, agents.length, registry, variants);
  if (planned > MAX_MANIFEST_TRIALS) {
    throw configError(
      "manifest_too_large",
      `the experiment plans ${planned} trials; one experiment holds at most ${MAX_MANIFEST_TRIALS} (lower --trials, --repeats or the lists, or split it into several experiments)`,
    );
  }
  const specs: TrialSpec[] = [];
  const budget: Budget = { ...config.budget };
  const taskParams = plannedTaskParams(
    config,
    registry,
    variants.map((v) => v.world),
  );
  const checked = new Set<string>();
  for (const v of variants) {
    const world = registry.world(v.world);
    const { params, source } = taskParams.get(world.id)!;
    const families = config.families ?? world.families.map((f) => f.name);
    for (const family of families) {
      const info = world.families.find((f) => f.name === family);
      if (!info) {
        throw configError(
          "unknown_family",
          `unknown family "${family}" for ${world.id} (known: ${world.families.map((f) => f.name).join(", ")})`,
        );
      }
      for (const difficulty of config.difficulties) {
        if (!info.difficulties.includes(difficulty)) {
          throw configError(
            "bad_difficulty",
            `${world.id}/${family} has no difficulty ${difficulty} (has ${info.difficulties.join(", ")})`,
          );
        }
        if (params && Object.keys(params).length && !checked.has(`${world.id}/${family}`)) {
          checked.add(`${world.id}/${family}`);
          checkTaskParams(world, { family, difficulty, seed: config.seed, params }, source);
        }
        for (let i = 0; i < config.trials; i++) {
          const seed = config.seed + i;
          for (const agent of agents) {
            for (let repeat = 0; repeat < config.repeats; repeat++) {
              const id = trialId({
                experimentId,
                world: world.id,
                ...(v.variantId ? { variantId: v.variantId } : {}),
                family,
                difficulty,
                seed,
                repeat,
                agent: agent.id,
              });
              specs.push({
                schemaVersion: 1,
                id,
                experimentId,
                index: specs.length,
                world: world.id,
                ...(v.variant !== undefined ? { variant: v.variant, variantId: v.variantId } : {}),
                family,
                difficulty,
                seed,
                repeat,
                ...(params ? { params } : {}),
                agent,
                budget,
              });
            }
          }
        }
      }
    }
  }
  const seen = new Set<string>();
  for (const spec of specs) {
    if (seen.has(spec.id)) {
      throw configError(
        "duplicate_trial",
        `the experiment plans ${spec.family} d${spec.difficulty} seed ${spec.seed} repeat ${spec.repeat} for ${spec.agent.id} twice (a family, difficulty, variant or agent is listed twice)`,
      );
    }
    seen.add(spec.id);
  }
  return specs;
}
