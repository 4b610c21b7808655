import { inspectionOf } from "../core/capabilities.ts";
import type { Inspection, Task, TrialSpec } from "../core/contracts.ts";
import { bareWorld, type EnvironmentFactory } from "../core/environment-factory.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { TrialEnd } from "../core/trial-end.ts";
import type { EpisodeEnd } from "./env-pool.ts";
import { classify } from "./outcome.ts";
import type { StartStates, TrialDeps } from "./trial-deps.ts";
import type { Guard, WorldStart } from "./trial-start.ts";
import type { TrialState } from "./trial-state.ts";

/** Episode id the cross-trial probe resets with, so probes of equal (task, seed) are comparable. */
export const PROBE_EPISODE = "proving.probe";

export type { StartStates } from "./trial-deps.ts";

export interface StartCheck {
  spec: TrialSpec;
  world: WorldDefinition;
  task: Task;
  /** The trial's environment, as it declared it can be inspected (a check needs it). */
  env: Inspection;
  episodeId: string;
  makeEnv: EnvironmentFactory;
  /** Compare with a freshly built instance reset the same way. */
  reference: boolean;
  /** The instance's last episode, when it was reused; and whether its state moved since that episode ended. */
  previous?: EpisodeEnd;
  movedSinceEnd?: boolean;
  startStates?: StartStates;
  /** Runs world work (reset of the reference and probe instances) under the trial's deadline. */
  guard: <T>(work: Promise<T>, what: string) => Promise<T>;
}

const describeOwners = (owners: string[]) => {
  const distinct = [...new Set(owners)];
  return distinct.slice(0, 3).join(", ") + (distinct.length > 3 ? `, … (${distinct.length} episodes)` : "");
};

/**
 * Asserts a clean start after reset; returns why the start is not clean, or `undefined`. In order:
 * no pending job owned by another episode; for a reused instance, nothing changed it between the end
 * of its last episode and this reset; the state equals a fresh instance's; and it equals the start
 * state of any earlier trial of the same task and seed in this run.
 */
export async function startProblem(c: StartCheck): Promise<string | undefined> {
  const foreign = c.env.pendingJobs().filter((j) => j.owner !== c.episodeId);
  if (foreign.length > 0) {
    return `${foreign.length} background job(s) owned by another episode (${describeOwners(foreign.map((j) => j.owner))}) pending at start: reset did not cancel them`;
  }
  if (c.previous && c.movedSinceEnd) {
    return `the reused instance changed after episode ${c.previous.episodeId} ended and before this reset: a callback or job fired after its episode`;
  }
  if (c.reference) {
    const reference = c.makeEnv(c.spec, c.world);
    await c.guard(reference.reset({ task: c.task, seed: c.spec.seed, episodeId: c.episodeId }), "reset()");
    if (inspectionOf(reference).stateHash() !== c.env.stateHash()) {
      return c.previous
        ? `start state differs from a freshly built instance: reset left state behind from episode ${c.previous.episodeId}`
        : "start state differs from a freshly built instance (reset left state behind)";
    }
  }
  if (c.startStates) {
    const { key, hash } = await probe(c);
    const seen = c.startStates.get(key);
    if (!seen) c.startStates.set(key, { hash, trialId: c.spec.id });
    else if (seen.hash !== hash) {
      return `start state differs from that of trial ${seen.trialId} (same task and seed): state is shared between trials`;
    }
  }
  return undefined;
}

/** Resets a fresh instance of the trial's task with the probe episode id and hashes its start state. */
export async function probe(c: Omit<StartCheck, "env">): Promise<{ key: string; hash: string }> {
  const instance = c.makeEnv(c.spec, c.world);
  await c.guard(instance.reset({ task: c.task, seed: c.spec.seed, episodeId: PROBE_EPISODE }), "reset()");
  const key = [
    c.spec.world,
    c.spec.variantId ?? "",
    c.task.id,
    c.task.generator.contentHash,
    c.spec.seed,
  ].join("\u0000");
  return { key, hash: inspectionOf(instance).stateHash() };
}

/**
 * The clean-start phase, after reset and before the agent starts: asserts the start is clean
 * (`startProblem`) and records how the check went. A start that is not clean ends the trial as
 * `contaminated`; an environment that declares no inspection cannot be checked (`not_checkable`).
 */
export async function checkCleanStart(
  t: TrialState,
  deps: TrialDeps,
  start: WorldStart,
  guard: Guard,
): Promise<void> {
  const inspection = start.env.capabilities.inspection;
  if (!inspection) return;
  const spec = t.spec;
  const checked = deps.checkCleanStart !== false;
  let dirty: string | undefined;
  try {
    dirty = await startProblem({
      spec,
      world: deps.world,
      task: start.task,
      env: inspection,
      episodeId: spec.id,
      makeEnv: deps.environment ?? bareWorld,
      reference: checked,
      ...(t.previous ? { previous: t.previous, movedSinceEnd: start.movedSinceEnd } : {}),
      ...(deps.startStates && checked ? { startStates: deps.startStates } : {}),
      guard,
    });
  } catch (err) {
    throw classify(err, "world");
  }
  t.cleanStart = dirty === undefined ? "passed" : "failed";
  if (dirty !== undefined) throw new TrialEnd("contaminated", dirty);
}
