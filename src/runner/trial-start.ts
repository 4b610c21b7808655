import type {
  Agent,
  AgentSession,
  Environment,
  Observation,
  StepRecord,
  Task,
  TrialSpec,
} from "../core/contracts.ts";
import { bareWorld } from "../core/environment-factory.ts";
import { ProvingError } from "../core/errors.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { TrialEnd } from "../core/trial-end.ts";
import { episodeInfo } from "./episode-info.ts";
import { classify } from "./outcome.ts";
import { safeStateHash } from "./state-hash.ts";
import type { TrialDeps } from "./trial-deps.ts";
import type { TrialState } from "./trial-state.ts";

/** Runs work under the trial's deadline. */
export type Guard = <T>(work: Promise<T>, what: string) => Promise<T>;

/** The task a planned trial plays, generated again from its spec (family, difficulty, seed, params). */
export function trialTask(spec: TrialSpec, world: WorldDefinition): Task {
  return world.generateTask({
    family: spec.family,
    difficulty: spec.difficulty,
    seed: spec.seed,
    ...(spec.params ? { params: spec.params } : {}),
    ...(spec.split ? { split: spec.split } : {}),
  });
}

/** A world reset for a trial. */
export interface WorldStart {
  task: Task;
  env: Environment;
  initial: Observation;
  /** A reused instance changed between the end of its last episode and this reset. */
  movedSinceEnd: boolean;
}

/**
 * The start of a trial: generates its task, builds its environment (or takes one from the pool) and
 * resets it under the deadline, filling in the state's `task`, `env`, `previous` and `initial` as it
 * goes. Whatever fails here is the world's (or the configuration's); the agent is never started.
 */
export async function startWorld(t: TrialState, deps: TrialDeps, guard: Guard): Promise<WorldStart> {
  const spec = t.spec;
  let movedSinceEnd = false;
  try {
    const task = trialTask(spec, deps.world);
    t.task = task;
    if (deps.pool) {
      const acquired = deps.pool.acquire(spec, deps.world);
      t.env = acquired.env;
      t.previous = acquired.previous;
      const inspection = acquired.env.capabilities.inspection;
      if (acquired.previous && inspection)
        movedSinceEnd = safeStateHash(inspection) !== acquired.previous.endHash;
    } else {
      t.env = (deps.environment ?? bareWorld)(spec, deps.world);
    }
    const env = t.env;
    const initial = await guard(
      Promise.resolve().then(() => env.reset({ task, seed: spec.seed, episodeId: spec.id })),
      "reset()",
    );
    t.initial = initial;
    return { task, env, initial, movedSinceEnd };
  } catch (err) {
    if (err instanceof ProvingError && err.fault === "config")
      throw new TrialEnd("infra_error", `${err.code}: ${err.message}`, "config");
    throw classify(err, "world");
  }
}

/** The steps a Setup layer replayed after reset: in the trace, marked setup, not agent steps. */
export function recordSetupSteps(env: Environment, steps: StepRecord[]): void {
  for (const r of env.capabilities.setup?.setupSteps() ?? []) {
    const record: StepRecord = {
      index: steps.length,
      action: r.action,
      observation: r.observation,
      reward: r.reward,
      terminated: false,
      truncated: false,
      t: r.info.now,
      setup: true,
      ...(r.info.layers?.length ? { layers: r.info.layers } : {}),
    };
    steps.push(record);
  }
}

/**
 * Starts the agent's session on the episode, under the deadline: the agent is told only what a
 * deployed agent would see (`episodeInfo`: no task id, family, difficulty, seed or trial id).
 */
export async function startAgent(
  agent: Agent,
  spec: TrialSpec,
  world: WorldStart,
  guard: Guard,
): Promise<AgentSession> {
  try {
    return await guard(Promise.resolve(agent.start(episodeInfo(spec, world.task, world.env))), "agent start");
  } catch (err) {
    throw classify(err, "agent");
  }
}
