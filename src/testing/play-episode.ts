/**
 * A bare episode driver for the reference agents (null, random, middling) and the known-good policy:
 * reset a fresh environment of the target, let the agent act until the episode ends or the step
 * budget runs out, and keep the environment open so the verdict can be judged again. No runner: the
 * audit's checks read observations and judge final states, which the runner's records do not keep.
 */
import type {
  Action,
  Agent,
  AgentSession,
  Environment,
  Observation,
  Task,
  TrialSpec,
  Verdict,
} from "../core/contracts.ts";
import { errorMessage, ProvingError } from "../core/errors.ts";
import type { Cell, Subject } from "./subject.ts";

export interface Episode {
  task: Task;
  seed: number;
  actions: Action[];
  observations: Observation[];
  verdict: Verdict | undefined;
  /** The environment, still open (for judging again); `dispose` it. */
  env: Environment;
  error?: string;
}

/** The verdict of an environment now, or undefined when it refuses one (a remote world before its end). */
export function judge(env: Environment): Verdict | undefined {
  try {
    return env.evaluate();
  } catch (err) {
    if (err instanceof ProvingError) return undefined;
    throw err;
  }
}

/** Plays episodes on the subject's environments, numbering them `audit-1`, `audit-2`, ... */
export class EpisodePlayer {
  #n = 0;

  constructor(private readonly subject: Subject) {}

  /** A fresh environment for `task`, not yet reset. */
  create(task: Task, seed: number): Environment {
    const { world, maxSteps } = this.subject;
    const spec: TrialSpec = {
      schemaVersion: 1,
      id: `audit-${++this.#n}`,
      experimentId: "audit",
      index: this.#n,
      world: world.id,
      family: task.family,
      difficulty: task.difficulty,
      seed,
      repeat: 0,
      agent: { id: "audit", kind: "scripted", spec: "audit" },
      budget: { maxSteps },
    };
    return this.subject.factory(spec, world);
  }

  /** Done with an environment this player built. */
  async dispose(env: Environment): Promise<void> {
    await this.subject.dispose(env);
  }

  /** Plays one episode of `agent`; the environment stays open for the caller (dispose it). */
  async play(agent: Agent, cell: Cell): Promise<Episode> {
    const task = this.subject.world.generateTask(cell);
    const env = this.create(task, cell.seed);
    const ep: Episode = { task, seed: cell.seed, actions: [], observations: [], verdict: undefined, env };
    try {
      let obs = await env.reset({ task, seed: cell.seed, episodeId: `audit-${this.#n}` });
      ep.observations.push(obs);
      const session: AgentSession = await agent.start({
        episodeId: `audit-${this.#n}`,
        world: this.subject.world.id,
        instruction: task.instruction,
        tools: env.spec.tools,
        samplingSeed: cell.seed,
      });
      for (let i = 0; i < this.subject.maxSteps; i++) {
        let action: Action;
        try {
          action = { callId: `a${i}`, ...(await session.act(obs)) } as Action;
        } catch {
          break; // a scripted policy with nothing more to do
        }
        ep.actions.push(action);
        const r = await env.step(structuredClone(action));
        obs = r.observation;
        ep.observations.push(obs);
        if (r.terminated || r.truncated) {
          ep.verdict = (r.info?.verdict as Verdict | undefined) ?? judge(env);
          break;
        }
      }
      ep.verdict ??= judge(env);
    } catch (err) {
      ep.error = errorMessage(err);
    }
    return ep;
  }
}
