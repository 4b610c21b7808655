import type {
  ActContext,
  AdmissibleAction,
  AgentAction,
  AgentSession,
  Environment,
  Observation,
  StepRecord,
  StepResult,
} from "../core/contracts.ts";
import { cloneJson } from "../core/json.ts";
import { TrialEnd } from "../core/trial-end.ts";
import { toAction } from "./agent-action.ts";
import { chargeUsage, exhaustedBudget } from "./budget.ts";
import type { Deadline } from "./deadline.ts";
import { endOfEpisode } from "./end-of-episode.ts";
import { agentCopy } from "./episode-info.ts";
import { classify } from "./outcome.ts";
import { stepRecord } from "./step-record.ts";
import type { TrialState } from "./trial-state.ts";

/**
 * The step loop: the agent acts on each observation, the world steps with the action, each step is
 * recorded (and handed to `onStep`), until the episode ends (the verdict decides the outcome) or a
 * budget, the deadline, a bad action or a crash ends the trial first (a `TrialEnd` is thrown).
 *
 * An agent that chooses among admissible actions (`withAdmissible`) is given the environment's current
 * list (a copy) with each observation.
 *
 * The loop is guarded by the deadline once, not per call: `act()` and `step()` are awaited as they
 * are (no wrapper promise per call). Once the deadline fired, the loop, should a late call resume it,
 * stops before touching anything.
 */
export function runStepLoop(
  t: TrialState,
  session: AgentSession,
  env: Environment,
  initial: Observation,
  deadline: Deadline,
  onStep: ((step: StepRecord) => void) | undefined,
  withAdmissible = false,
): Promise<void> {
  let during = "act()";
  const loop = async (): Promise<void> => {
    const { steps, stats } = t;
    const budget = t.spec.budget;
    const setupSteps = steps.length;
    let observation = initial;
    for (;;) {
      const exhausted = exhaustedBudget(budget, steps.length - setupSteps, stats);
      if (exhausted !== undefined) throw new TrialEnd("budget_exhausted", exhausted);
      // one clock read for both: whether the deadline passed, and the time the agent has left
      const timeLeftMs = deadline.left();
      if (timeLeftMs <= 0) throw new TrialEnd("timeout", "wall-clock timeout before act()");
      during = "act()";
      let returned: AgentAction;
      try {
        const context: ActContext = Number.isFinite(timeLeftMs) ? { timeLeftMs } : {};
        if (withAdmissible) context.admissible = admissibleNow(env);
        returned = await session.act(agentCopy(observation), context);
      } catch (err) {
        if (deadline.fired) return;
        throw classify(err, "agent");
      }
      if (deadline.fired) return;
      const { action, meta } = toAction(returned, steps.length);
      if (meta) chargeUsage(stats, meta);
      if (deadline.passed()) throw new TrialEnd("timeout", "wall-clock timeout before step()");
      during = "step()";
      let result: StepResult;
      try {
        result = await env.step(action);
      } catch (err) {
        if (deadline.fired) return;
        throw classify(err, "world");
      }
      if (deadline.fired) return;
      const record = stepRecord(steps.length, action, result);
      if (meta) record.meta = meta;
      steps.push(record);
      stats.virtualSeconds = record.t;
      onStep?.(record);
      observation = result.observation;
      const end = endOfEpisode(result, env);
      if (end) {
        t.verdict = end.verdict;
        if (result.truncated) throw new TrialEnd(end.outcome, end.reason);
        t.outcome = end.outcome;
        t.reason = end.reason;
        return;
      }
    }
  };
  return deadline.guard(loop(), () => during);
}

/** The environment's admissible actions now, as a copy the agent may keep or change. */
function admissibleNow(env: Environment): AdmissibleAction[] {
  const admissible = env.capabilities.admissible;
  if (!admissible) {
    throw new TrialEnd(
      "infra_error",
      `the agent chooses among admissible actions, but ${env.spec.id} declares none`,
      "config",
    );
  }
  let list: AdmissibleAction[];
  try {
    list = admissible.admissibleActions();
  } catch (err) {
    throw classify(err, "world");
  }
  return cloneJson(list);
}
