import type { ResolveAgent } from "../agents/resolve.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import type { Registry } from "../core/registry.ts";
import type { ExperimentConfig } from "./experiment.ts";
import type { PlannedVariant } from "./manifest.ts";

/**
 * What running experiments needs from a gym, and all a feature that runs trials receives (not the
 * whole gym): the world registry, the agent resolver, the environment builder (the harness's, for
 * variants), the variant planner and the variant id the runner records. `gym.runOptions()` gives them.
 */
export interface RunParts {
  registry: Registry;
  resolveAgent: ResolveAgent;
  environment: EnvironmentFactory;
  planVariants: (config: ExperimentConfig) => PlannedVariant[];
  /** The id the runner records for a variant (the harness's, over the normalized spec). */
  variantId: (variant: unknown) => string;
}
