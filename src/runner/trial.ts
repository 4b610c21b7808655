import { performance } from "node:perf_hooks";
import type { TrialRecord, TrialSpec } from "../core/contracts.ts";
import { TrialEnd } from "../core/trial-end.ts";
import { checkAfterEnd } from "./after-end.ts";
import { checkCleanStart } from "./clean-start.ts";
import { Deadline } from "./deadline.ts";
import { closeEnvironment } from "./env-pool.ts";
import { classify } from "./outcome.ts";
import { runStepLoop } from "./step-loop.ts";
import type { TrialDeps } from "./trial-deps.ts";
import { finishTrial } from "./trial-record.ts";
import { type Guard, recordSetupSteps, startAgent, startWorld } from "./trial-start.ts";
import { newTrialState } from "./trial-state.ts";

export type { TrialDeps } from "./trial-deps.ts";

/**
 * Runs one planned trial to exactly one outcome. Never throws for what an agent or world does.
 *
 * Its phases, in order: start (task, environment, reset), the clean-start check, the setup steps and
 * the agent's start, the step loop (budgets, actions, steps, verdict), then, however it ended, the
 * after-end check and the record. The first phase to end the trial throws a `TrialEnd` (or an error,
 * classified here); the wall-clock deadline covers every phase up to the record.
 */
export async function runTrial(spec: TrialSpec, deps: TrialDeps): Promise<TrialRecord> {
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const t = newTrialState(spec);
  const deadline = new Deadline(t0 + (spec.budget.wallTimeoutMs ?? Number.POSITIVE_INFINITY));
  const guard: Guard = (work, what) => deadline.guard(work, what);
  try {
    const start = await startWorld(t, deps, guard);
    await checkCleanStart(t, deps, start, guard);
    recordSetupSteps(start.env, t.steps);
    const session = await startAgent(deps.agent, spec, start, guard).catch((err: unknown) => {
      // the agent's own clean-start check (e.g. a cmd: agent's private dir, an earlier episode's processes)
      if (err instanceof TrialEnd && err.outcome === "contaminated") t.cleanStart = "failed";
      throw err;
    });
    t.session = session;
    await runStepLoop(
      t,
      session,
      start.env,
      start.initial,
      deadline,
      deps.onStep,
      deps.agent.usesAdmissibleActions === true,
    );
  } catch (err) {
    const end = err instanceof TrialEnd ? err : classify(err, "world");
    t.outcome = end.outcome;
    t.reason = end.reason;
    t.fault = end.fault;
    // what the agent left behind is still judged, unless the world cannot be trusted to judge it
    const env = t.env;
    if (
      env &&
      t.verdict === undefined &&
      t.initial !== undefined &&
      end.outcome !== "contaminated" &&
      end.outcome !== "infra_error"
    ) {
      try {
        t.verdict = env.evaluate();
      } catch {
        t.verdict = undefined;
      }
    }
  }
  deadline.clear();
  const end = await checkAfterEnd(t, deps);
  if (t.env) {
    if (deps.pool) await deps.pool.release(spec, t.env, end);
    else await closeEnvironment(t.env);
  }
  return finishTrial(t, startedAt, t0);
}
