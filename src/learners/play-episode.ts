/**
 * Plays one episode of an environment that declares admissible actions, with an agent that chooses
 * among them (a reference learner): reset, then act on each observation with the current list
 * (`act(observation, {admissible})`), step, until the episode ends or `maxSteps` actions; then the
 * verdict, and the session's end hook with it (where a learner learns). No runner, no store: the
 * learners' own loop for training and the learning tests.
 */
import { admissibleActionsOf } from "../core/capabilities.ts";
import type { Agent, Environment, Observation, Outcome, Task, Verdict } from "../core/contracts.ts";
import type { ActContext } from "./learner.ts";

export interface PlayedEpisode {
  outcome: Outcome;
  verdict: Verdict;
  steps: number;
}

export async function playEpisode(
  env: Environment,
  task: Task,
  seed: number,
  agent: Agent,
  options: { maxSteps?: number; episodeId?: string } = {},
): Promise<PlayedEpisode> {
  const maxSteps = options.maxSteps ?? 60;
  const episodeId = options.episodeId ?? `${task.id}#${seed}`;
  let observation: Observation = await env.reset({ task, seed });
  const session = await agent.start({
    episodeId,
    world: env.spec.world,
    instruction: observation.kind === "task" ? observation.instruction : "",
    tools: env.spec.tools,
    samplingSeed: seed,
  });
  const act = session.act.bind(session) as (o: Observation, c: ActContext) => ReturnType<typeof session.act>;
  let steps = 0;
  let terminated = false;
  while (steps < maxSteps && !terminated) {
    const admissible = admissibleActionsOf(env);
    if (admissible.length === 0) break;
    const action = await act(observation, { admissible });
    const result = await env.step({ tool: action.tool, args: action.args, callId: String(steps) });
    steps++;
    observation = result.observation;
    terminated = result.terminated;
  }
  const verdict = env.evaluate();
  const outcome: Outcome = !terminated ? "budget_exhausted" : verdict.passed ? "passed" : "failed";
  await session.end?.({ episodeId, outcome, verdict, last: observation });
  return { outcome, verdict, steps };
}
