import type { Agent, StepRecord } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import type { WorldDefinition } from "../core/registry.ts";
import type { StartStates } from "./clean-start.ts";
import type { EnvironmentPool } from "./env-pool.ts";

/** What one trial runs with: its world and agent, and how its environment is built and checked. */
export interface TrialDeps {
  world: WorldDefinition;
  agent: Agent;
  environment?: EnvironmentFactory;
  /** Compare the start state with a freshly built reference instance (default true). */
  checkCleanStart?: boolean;
  /** Called after each step (live progress, streaming). */
  onStep?: (step: StepRecord) => void;
  /**
   * Instances to reuse across this worker's trials instead of building one per trial. Reset must
   * clean a reused instance; the clean-start check verifies that it did.
   */
  pool?: EnvironmentPool;
  /**
   * Start states seen so far in this run (shared by every trial of it): a trial whose start state
   * differs from an earlier trial's of the same task and seed is contaminated (state shared between
   * trials). Only used with the clean-start check.
   */
  startStates?: StartStates;
  /** After the episode, wait one timer turn and check nothing touched the world (default true). */
  checkAfterEnd?: boolean;
}
