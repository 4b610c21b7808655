import type { Agent, StepRecord } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import type { WorldDefinition } from "../core/registry.ts";
import type { EnvironmentPool } from "./env-pool.ts";

/**
 * Start-state hashes seen in one run, by (world, variant, task, seed): a pure function of those, so
 * two trials of the same task and seed (other agents, other repeats) must start from the same state.
 * When they do not, state leaks between trials through something outside the instance (a module-level
 * map, a shared database): the later one is contaminated.
 */
export type StartStates = Map<string, { hash: string; trialId: string }>;

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
