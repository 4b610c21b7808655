import type { ResolveAgent, ResolvedAgent, RunResources } from "../agents/resolve.ts";
import type { AgentRef } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import type { Registry } from "../core/registry.ts";
import type { ExperimentPlan } from "./executor.ts";
import type { ExperimentConfig } from "./experiment.ts";
import { expandManifest, type PlannedVariant } from "./manifest.ts";

export function newExperimentId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `exp-${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/**
 * Resolves an experiment's `agents` for its worlds (lending them the run's `resources`: its store's
 * policies, its clock); two agents may not share an id.
 */
export async function resolveAgents(
  config: ExperimentConfig,
  registry: Registry,
  resolveAgent: ResolveAgent,
  cwd: string,
  resources: RunResources = {},
): Promise<ResolvedAgent[]> {
  const worlds = config.worlds.map((w) => registry.world(w));
  const agents: ResolvedAgent[] = [];
  for (const spec of config.agents) agents.push(await resolveAgent(spec, { cwd, worlds, ...resources }));
  const seen = new Set<string>();
  for (const a of agents) {
    if (seen.has(a.ref.id)) throw configError("duplicate_agent", `two agents have the id "${a.ref.id}"`);
    seen.add(a.ref.id);
  }
  return agents;
}

export interface PlanOptions {
  registry: Registry;
  /** Expands `config.variants` into planned variants (the harness supplies it). */
  planVariants?: ((config: ExperimentConfig) => PlannedVariant[]) | undefined;
  /** Creation time and id source. */
  now: () => Date;
}

/**
 * Plans an experiment: its id (the config's, or a new one), its stored definition and creation time,
 * and its manifest — every trial it will ever count, variants expanded by the harness.
 */
export function planExperiment(
  config: ExperimentConfig,
  agents: readonly AgentRef[],
  opts: PlanOptions,
): ExperimentPlan & { config: ExperimentConfig } {
  const createdAt = opts.now();
  const id = config.id ?? newExperimentId(createdAt);
  const variants = config.variants?.length ? opts.planVariants?.(config) : undefined;
  if (config.variants?.length && !variants) {
    throw configError(
      "variants_unsupported",
      "this experiment lists variants, but no harness was given to plan them",
    );
  }
  const planned = { ...config, id };
  return {
    config: planned,
    experiment: { id, config: planned as unknown as JsonObject, createdAt: createdAt.toISOString() },
    manifest: expandManifest(id, config, [...agents], opts.registry, variants),
  };
}
