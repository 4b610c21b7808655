import type { ResolvedAgent } from "../agents/resolve.ts";
import type { Agent, StepRecord, TrialRecord, TrialSpec } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import { configError, errorMessage, ProvingError } from "../core/errors.ts";
import type { Registry, WorldDefinition } from "../core/registry.ts";
import type { EnvironmentPool } from "./env-pool.ts";
import { runTrial } from "./trial.ts";
import type { StartStates } from "./trial-deps.ts";
import { unranRecord } from "./trial-record.ts";

/** What a planned trial is run with: where its world and agent come from, and how it is checked. */
export interface PlannedTrialContext {
  /** Where each spec's world comes from (`name@version`). */
  registry: Pick<Registry, "world">;
  /** The run's agents, by `AgentRef.id`. */
  agents: ReadonlyMap<string, ResolvedAgent>;
  /** Builds each trial's environment (the harness uses this for variants). */
  environment?: EnvironmentFactory;
  /** This worker's reusable instances (`reuseEnvironments`). */
  pool?: EnvironmentPool;
  /**
   * Start states for the cross-trial clean-start comparison (a probe instance per trial): a map shared
   * by every trial that must start alike (a run's, a curriculum's). Without one, not compared.
   */
  startStates?: StartStates;
  /** Skip the clean-start checks (default: checked). */
  checkCleanStart?: boolean;
  /** Skip the after-episode check (default: checked). */
  checkAfterEnd?: boolean;
  /** Called after each step (live progress, an MCP client's replies). */
  onStep?: (step: StepRecord) => void;
}

/**
 * Runs one planned trial from its spec: its world from the registry and its agent from the run's
 * resolved agents, then `runTrial`. A planned trial that cannot even start (an unknown world, an
 * agent that fails to build for it) still gets a record — `infra_error`, with the reason and the
 * fault of what failed — so it counts like every other.
 */
export async function runPlannedTrial(spec: TrialSpec, ctx: PlannedTrialContext): Promise<TrialRecord> {
  let world: WorldDefinition;
  let agent: Agent;
  try {
    world = ctx.registry.world(spec.world);
    const resolved = ctx.agents.get(spec.agent.id);
    if (!resolved) throw configError("unknown_agent", `no agent "${spec.agent.id}" was resolved`);
    agent = resolved.forWorld(world);
  } catch (err) {
    const fault = err instanceof ProvingError ? err.fault : "internal";
    return unranRecord(spec, "infra_error", `cannot start the trial: ${errorMessage(err)}`, fault);
  }
  return runTrial(spec, {
    world,
    agent,
    ...(ctx.environment ? { environment: ctx.environment } : {}),
    ...(ctx.pool ? { pool: ctx.pool } : {}),
    ...(ctx.checkCleanStart === false ? { checkCleanStart: false } : {}),
    ...(ctx.checkCleanStart !== false && ctx.startStates ? { startStates: ctx.startStates } : {}),
    ...(ctx.checkAfterEnd === false ? { checkAfterEnd: false } : {}),
    ...(ctx.onStep ? { onStep: ctx.onStep } : {}),
  });
}
