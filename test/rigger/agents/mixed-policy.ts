import type { Agent, AgentSession, EpisodeInfo, Observation } from "../../../src/core/contracts.ts";
import { hashJson } from "../../../src/core/hash.ts";

/**
 * A planted-weakness agent: on each task it plays either the flawed or the sound scripted policy,
 * chosen by a hash of the task's visible subject (ticket or case id) — deterministic per task, and
 * about half the tasks of any sample get the flaw. It models an agent that is inconsistent across
 * inputs, so a variant that exposes the flaw lands it near a 50% pass rate.
 */
export function mixedPolicy(id: string, flawed: Agent, sound: Agent, subjectField: string): Agent {
  return {
    id,
    start(episode: EpisodeInfo): AgentSession {
      let inner: AgentSession | undefined;
      return {
        async act(observation: Observation) {
          if (!inner) {
            const subject = observation.kind === "task" ? String(observation.context[subjectField]) : "";
            const flaw = Number.parseInt(hashJson(subject, 8), 16) % 2 === 1;
            inner = await (flaw ? flawed : sound).start(episode);
          }
          return inner.act(observation);
        },
      };
    },
  };
}
