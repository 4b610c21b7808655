import type { Inspection } from "../core/contracts.ts";
import { bareWorld } from "../core/environment-factory.ts";
import { probe, type StartCheck } from "./clean-start.ts";
import type { EpisodeEnd } from "./env-pool.ts";
import { safeStateHash } from "./state-hash.ts";
import type { TrialDeps } from "./trial-deps.ts";
import type { TrialState } from "./trial-state.ts";

/**
 * After the episode: a fresh instance of the same task must still start where it did before the trial.
 * When it does not, the trial's writes escaped its instance (a module-level map, a shared database)
 * and can satisfy or spoil another trial's test.
 */
export async function endProblem(c: Omit<StartCheck, "env">): Promise<string | undefined> {
  if (!c.startStates) return undefined;
  const { key, hash } = await probe(c);
  const seen = c.startStates.get(key);
  if (seen && seen.hash !== hash) {
    return "a fresh instance of this task no longer starts where it did: state written during the trial escaped its instance (shared between trials)";
  }
  return undefined;
}

function safeLeaked(env: Inspection): number | undefined {
  try {
    return env.leakedJobs();
  } catch {
    return undefined;
  }
}

/** One turn of the timers phase: a callback a world left with a 0 ms timer has run after this. */
const timerTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export interface AfterEpisode {
  /** State hash once the episode has settled (`undefined`: the world cannot hash its state). */
  endHash?: string;
  /** Why the world is not quiet after its episode ended, if it is not. */
  problem?: string;
}

/**
 * After an episode ends nothing may touch its world: waits one timer turn and checks the state hash
 * and the leaked-job count did not move (a callback or job that fires after its episode is reported).
 */
export async function afterEpisode(env: Inspection, wait: boolean): Promise<AfterEpisode> {
  const endHash = safeStateHash(env);
  if (endHash === undefined || !wait) return endHash === undefined ? {} : { endHash };
  const leaked = safeLeaked(env);
  await timerTurn();
  const settled = safeStateHash(env);
  if (settled !== endHash || safeLeaked(env) !== leaked) {
    return {
      ...(settled !== undefined ? { endHash: settled } : {}),
      problem: "the world changed after the episode ended: a callback or job fired after its episode",
    };
  }
  return { endHash };
}

/** Ends the trial as `contaminated` (an isolation failure is no one's error: no fault). */
function contaminate(t: TrialState, reason: string): void {
  t.outcome = "contaminated";
  t.reason = reason;
  t.fault = undefined;
}

/**
 * The after-end phase, once the episode is over whatever ended it (nothing may touch its world from
 * here on): waits a timer turn and checks the world stayed still, that no job of another episode
 * fired during the trial, and that the trial's writes did not escape its instance. Any of those turns
 * the outcome into `contaminated`; `afterEnd` records how the check went (`not_checkable` without
 * inspection). Returns how the instance ended when it may be reused (not after a contaminated,
 * crashed or timed-out trial).
 */
export async function checkAfterEnd(
  t: TrialState,
  deps: Pick<TrialDeps, "world" | "environment" | "startStates" | "checkCleanStart" | "checkAfterEnd">,
): Promise<EpisodeEnd | undefined> {
  const env = t.env;
  const inspection = env?.capabilities.inspection;
  if (!env || t.initial === undefined || !inspection) return undefined;
  const spec = t.spec;
  const after = await afterEpisode(inspection, deps.checkAfterEnd !== false);
  let leaked = 0;
  try {
    leaked = inspection.leakedJobs();
  } catch {
    leaked = 0;
  }
  t.afterEnd = leaked > 0 || after.problem ? "failed" : "passed";
  if (t.outcome !== "contaminated") {
    if (leaked > 0) {
      const previous = t.previous;
      contaminate(
        t,
        `${leaked} background job(s) of another episode fired during the trial${previous ? ` (instance reused after episode ${previous.episodeId})` : ""}`,
      );
    } else if (after.problem) {
      contaminate(t, after.problem);
    }
  }
  if (t.outcome !== "contaminated" && t.task && deps.startStates && deps.checkCleanStart !== false) {
    try {
      const escaped = await endProblem({
        spec,
        world: deps.world,
        task: t.task,
        episodeId: spec.id,
        makeEnv: deps.environment ?? bareWorld,
        reference: false,
        startStates: deps.startStates,
        guard: (work) => work,
      });
      if (escaped) {
        contaminate(t, escaped);
        t.afterEnd = "failed";
      }
    } catch {
      // the start check built the same probe without trouble; a failure here changes nothing recorded
    }
  }
  const reusable = t.outcome !== "contaminated" && t.outcome !== "infra_error" && t.outcome !== "timeout";
  return reusable && after.endHash !== undefined ? { episodeId: spec.id, endHash: after.endHash } : undefined;
}
