/**
 * How an agent that is not an LLM takes skills: its task observation carries them in
 * `context.skills` (`[{id, text}]`, retrieved for that task), and its first action records their ids
 * in `meta.skills`. The agent is otherwise untouched: what it does with the text is its own (a
 * scripted policy ignores it). LLM agents take skills in their system prompt instead (`skillSource`).
 */
import type { SkillSource } from "../agents/llm/session.ts";
import type { ResolvedAgent } from "../agents/resolve.ts";
import type { Agent, AgentAction, AgentSession, Observation } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";

function withSkillContext(inner: AgentSession, source: SkillSource): AgentSession {
  let ids: string[] | undefined;
  return {
    async act(observation, context) {
      let seen: Observation = observation;
      if (observation.kind === "task") {
        const skills = source({ instruction: observation.instruction, tools: observation.tools });
        ids = skills.map((s) => s.id);
        seen = {
          ...observation,
          context: { ...observation.context, skills: skills.map((s) => ({ id: s.id, text: s.text })) },
        };
      }
      const action: AgentAction = await inner.act(seen, context);
      if (ids === undefined || ids.length === 0) return action;
      const meta = { ...action.meta, skills: ids };
      ids = undefined;
      return { ...action, meta };
    },
    ...(inner.end ? { end: (record) => inner.end?.(record) ?? Promise.resolve() } : {}),
  };
}

function agentWithSkills(agent: Agent, id: string, source: SkillSource | undefined): Agent {
  return {
    id,
    ...(agent.usesAdmissibleActions ? { usesAdmissibleActions: true } : {}),
    start: async (episode) => {
      const session = await agent.start(episode);
      return source ? withSkillContext(session, source) : session;
    },
  };
}

/**
 * `resolved` playing as `id`, its task observations carrying the skills `source` retrieves (without a
 * source: the same agent under `id`, the no-skill arm); `record` joins its ref's config. A learner's
 * `frozen` and `finish` pass through.
 */
export function contextSkillsAgent(
  resolved: ResolvedAgent,
  id: string,
  source: SkillSource | undefined,
  record: JsonObject = {},
): ResolvedAgent {
  const out: ResolvedAgent = {
    ref: { ...resolved.ref, id, config: { ...(resolved.ref.config ?? {}), ...record } },
    forWorld: (world) => agentWithSkills(resolved.forWorld(world), id, source),
  };
  if (resolved.ordered) out.ordered = true;
  const finish = resolved.finish?.bind(resolved);
  if (finish) out.finish = (end) => finish(end);
  if (resolved.frozen) {
    const frozen = resolved.frozen;
    out.frozen = () => contextSkillsAgent(frozen(), id, source, record);
  }
  return out;
}
