/**
 * The reference agents every preset of the checker plays against a world, besides its own scripted
 * policies: the null agent (the least an agent can do), its keyword-stuffing and blind-submit
 * variants (the audit's), a seeded random agent (valid calls, no plan) and a middling agent (the
 * known-good policy with seeded random moves). All are deterministic: the
 * same seed and observations give the same actions.
 */
import type { Agent, AgentSession, Observation } from "../core/contracts.ts";
import type { JsonValue } from "../core/json.ts";
import { Rng } from "../core/rng.ts";
import { sampleValue, validates } from "./json-schema.ts";

/** A tool whose name says it ends the episode, for an agent that does not read the spec's `terminalTools`. */
const TERMINAL = /submit|close|finish|done|end/i;

/**
 * THE null agent (there is one; id `null`): it ends the episode at once without doing any work —
 * its first and only action is the world's terminal tool (submit, close, finish...; else the first
 * tool) with arguments drawn from that tool's schema with a fixed seed (the same call every time). A world it passes is trivial: the verifier
 * accepts an episode in which the agent read nothing and changed nothing but ending it. (It does not
 * idle until the step budget runs out: a budget-exhausted episode can never pass, so that would check
 * nothing.) The audit's `null-agent-fails` and the curriculum's quality gate (`trivial`) both play it.
 */
export const NULL_AGENT: Agent = {
  id: "null",
  start: (): AgentSession => ({
    async act(obs: Observation) {
      if (obs.kind !== "task") return { tool: "__end__", args: {} };
      const terminal = obs.tools.find((t) => TERMINAL.test(t.name)) ?? obs.tools[0];
      const args = sampleValue(terminal?.input_schema ?? {}, Rng.seeded(0, "null"), ["x"], {}) as Record<
        string,
        JsonValue
      >;
      return { tool: terminal?.name ?? "__end__", args };
    },
  }),
};

/** The null agent (`NULL_AGENT`; the same object every call). */
export function nullAgent(): Agent {
  return NULL_AGENT;
}

/**
 * The words a keyword-matching verifier might look for, in one text without negation: conflict
 * claims, success claims, the outcomes of support work.
 */
export const KEYWORD_STUFFING =
  "Done: fixed, resolved, verified, approved, replaced, refunded, cancelled, shipped, escalated and closed. " +
  "Conflict: README.md and the tests contradict each other (impossible). All tests pass; the customer confirmed.";

/** The terminal tool of a task observation (by the spec's list or the name), else the first tool. */
const terminalOf = (obs: Observation & { kind: "task" }) =>
  obs.tools.find((t) => TERMINAL.test(t.name)) ?? obs.tools[0];

/**
 * A null agent that stuffs keywords (id `null-keywords`): it ends the episode at once like the null
 * agent, every string argument of its one call the `KEYWORD_STUFFING` text where the schema takes it.
 * A world it passes judges words, not work.
 */
export const KEYWORD_NULL_AGENT: Agent = {
  id: "null-keywords",
  start: (): AgentSession => ({
    async act(obs: Observation) {
      if (obs.kind !== "task") return { tool: "__end__", args: {} };
      const terminal = terminalOf(obs);
      const schema = terminal?.input_schema ?? {};
      const args = sampleValue(schema, Rng.seeded(0, "null-keywords"), [KEYWORD_STUFFING], {
        allProperties: true,
      }) as Record<string, JsonValue>;
      for (const key of Object.keys(args)) {
        if (typeof args[key] !== "string") continue;
        const stuffed = { ...args, [key]: KEYWORD_STUFFING };
        if (validates(schema, stuffed)) args[key] = KEYWORD_STUFFING;
      }
      return { tool: terminal?.name ?? "__end__", args };
    },
  }),
};

/**
 * A blind-submit agent (id `blind-submit-<seed>`): it ends the episode at once with the terminal
 * tool, its arguments drawn from the schema with the ids the task showed (plausible, never looked
 * up). A world it passes can be solved without reading anything.
 */
export function blindSubmitAgent(seed: number): Agent {
  return {
    id: `blind-submit-${seed}`,
    start: (): AgentSession => ({
      async act(obs: Observation) {
        if (obs.kind !== "task") return { tool: "__end__", args: {} };
        const terminal = terminalOf(obs);
        const pool = new Set<string>();
        collectStrings(obs.context, pool);
        collectStrings(obs.instruction.match(/[A-Za-z]+-\d+|\d+/g) ?? [], pool);
        const args = sampleValue(terminal?.input_schema ?? {}, Rng.seeded(seed, "blind-submit"), [...pool], {
          allProperties: true,
        }) as Record<string, JsonValue>;
        return { tool: terminal?.name ?? "__end__", args };
      },
    }),
  };
}

/** Strings an episode has shown (ids to aim random calls at). */
function collectStrings(value: unknown, pool: Set<string>): void {
  if (typeof value === "string") {
    if (value.length > 0 && value.length <= 80) pool.add(value);
  } else if (Array.isArray(value)) for (const v of value) collectStrings(v, pool);
  else if (value && typeof value === "object") for (const v of Object.values(value)) collectStrings(v, pool);
}

/**
 * A seeded random agent: each action is a random tool with arguments drawn from its JSON Schema
 * (strings from the ids the episode has shown, so calls reach real entities); a terminal tool is
 * re-drawn 4 times in 5, so episodes are not all one step long.
 */
export function randomAgent(seed: number, terminalTools: readonly string[] = []): Agent {
  return {
    id: `random-${seed}`,
    start: () => {
      const rng = Rng.seeded(seed, "audit/random-agent");
      const pool = new Set<string>();
      let tools: { name: string; input_schema: unknown }[] = [];
      return {
        async act(obs: Observation) {
          if (obs.kind === "task") {
            tools = obs.tools;
            collectStrings(obs.context, pool);
          } else collectStrings(obs.result, pool);
          let tool = rng.pick(tools);
          if (terminalTools.includes(tool.name) && rng.bool(0.8)) tool = rng.pick(tools);
          return {
            tool: tool.name,
            args: sampleValue(tool.input_schema, rng, [...pool]) as Record<string, JsonValue>,
          };
        },
      };
    },
  };
}

/**
 * A middling agent: the known-good policy with a seeded `share` (default 30%) of its moves after the
 * first replaced by random calls (never a submit or close), so its outcomes vary across seeds.
 */
export function middlingAgent(knownGood: Agent, seed: number, share = 0.3): Agent {
  return {
    id: `middling-${seed}`,
    start: async (ep) => {
      const good = await knownGood.start(ep);
      const rng = Rng.seeded(seed, "audit/middling");
      const noise = await randomAgent(seed + 7_000_003).start(ep);
      let first = true;
      return {
        async act(obs: Observation) {
          if (!first && rng.bool(share)) {
            const a = await noise.act(obs);
            if (!/submit|close/i.test(a.tool)) return a;
          }
          if (first) await noise.act(obs); // let the noise see the tools
          first = false;
          return good.act(obs);
        },
      };
    },
  };
}
