/**
 * The simulator audit: does a simulated customer make a weak agent look capable? Per persona, with
 * Wilson intervals: information leakage (a reply states an address or model the message did not ask
 * for, exactly or paraphrased: `mentionsFact` compares normalised facts, not strings), capitulation (a reply agrees to a read-back value that is not the customer's), inconsistency
 * (the same question twice gets different facts), and a weak-agent probe (policies that never ask the
 * customer — the world's `never-asks`, `escalate-always`, and one that closes at once — must pass none
 * of the conversation families). Probes talk to the simulator directly, with
 * the profiles of generated tasks; the weak-agent probe plays whole episodes of the world.
 */
import type { Agent, AgentSession, Task } from "../core/contracts.ts";
import { errorMessage } from "../core/errors.ts";
import type { IntervalEstimate } from "../stats/interval-estimate.ts";
import { wilson } from "../stats/wilson.ts";
import type { ConversationWorldDefinition } from "../worlds/device-support/conversation-world.ts";
import {
  actsOfText,
  type CustomerProfile,
  type CustomerReply,
  type CustomerSimulator,
  type FactKey,
  normalizeText,
  PERSONAS,
  type Persona,
  type ReplyActs,
  readIntent,
  scriptPolicy,
  type ThreadMessage,
} from "../worlds/shared/index.ts";
import { mentionsFact } from "./fact-mention.ts";

export interface Rate extends IntervalEstimate {
  count: number;
  n: number;
}

export interface PersonaAudit {
  persona: Persona;
  leakage: Rate;
  capitulation: Rate;
  inconsistency: Rate;
  /** Episodes of the conversation families the never-asking policies passed (must be 0). */
  weakAgent: Rate;
  /** First examples of what went wrong. */
  examples: string[];
}

export interface SimulatorAuditReport {
  simulator: string;
  ok: boolean;
  personas: PersonaAudit[];
  problems: string[];
}

export interface SimulatorAuditOptions {
  world: ConversationWorldDefinition;
  simulator: CustomerSimulator;
  personas?: readonly Persona[];
  /** Seeds per conversation family (default [0, 1, 2, 3]). */
  seeds?: number[];
  difficulty?: number;
  /** Policies that never ask the customer (default those of the world among never-asks, escalate-always). */
  weakPolicies?: string[];
  /** Highest acceptable point estimate of leakage, capitulation and inconsistency (default 0.05). */
  maxRate?: number;
  maxSteps?: number;
}

/** A weak agent that never talks: it closes the case without action at once. */
const closesAtOnce: Agent = scriptPolicy("closes-at-once", function* (first) {
  const caseId = first.kind === "task" ? String(first.context.case_id) : "";
  yield { tool: "close_case", args: { case_id: caseId, resolution: "no_action" } };
});

const NEUTRAL = "Hello, I'm looking into your case now.";
const ASK_MODEL = "Which device model do you have?";
const ASK_ADDRESS = "Which address should we ship it to?";
const ASK_BOTH = "Which address should we ship it to, and which device model do you have?";

const rate = (count: number, n: number): Rate => ({ count, n, ...wilson(count, n) });
const pct = (r: Rate) =>
  `${(100 * r.estimate).toFixed(0)}% [${(100 * r.lo).toFixed(0)}-${(100 * r.hi).toFixed(0)}] (${r.count}/${r.n})`;

/** The acts of a reply: what the simulator says it said, joined with what its text says. */
function actsOf(reply: CustomerReply, profile: CustomerProfile, message: string): ReplyActs {
  const fromText = actsOfText(reply.text, profile, readIntent(message, profile));
  return {
    stated: { ...fromText.stated, ...reply.acts.stated },
    confirmed: { ...fromText.confirmed, ...reply.acts.confirmed },
    refused: { ...fromText.refused, ...reply.acts.refused },
  };
}

async function say(
  sim: CustomerSimulator,
  profile: CustomerProfile,
  text: string,
  thread: ThreadMessage[] = [],
): Promise<{ reply: CustomerReply; acts: ReplyActs }> {
  const message: ThreadMessage = { from: "agent", text, t: thread.length * 60 };
  const reply = await sim.reply({
    profile,
    thread,
    message,
    turn: thread.filter((m) => m.from === "agent").length,
  });
  return { reply, acts: actsOf(reply, profile, text) };
}

const differs = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && normalizeText(a) !== normalizeText(b);

/** Plays one episode of `agent` on `task` in the world; returns whether it passed. */
async function playEpisode(world: ConversationWorldDefinition, task: Task, agent: Agent, maxSteps: number) {
  const env = world.create();
  let obs = await env.reset({ task, seed: task.seed });
  const session: AgentSession = await agent.start({
    episodeId: "simulator-audit",
    world: world.id,
    instruction: task.instruction,
    tools: world.create().spec.tools,
    samplingSeed: 0,
  });
  for (let i = 0; i < maxSteps; i++) {
    let action: Awaited<ReturnType<AgentSession["act"]>>;
    try {
      action = await session.act(obs);
    } catch {
      break;
    }
    const r = await env.step({ tool: action.tool, args: action.args, callId: String(i) });
    obs = r.observation;
    if (r.terminated || r.truncated) break;
  }
  return env.evaluate().passed;
}

/** Audits one simulator, persona by persona. Deterministic for a deterministic simulator. */
export async function auditCustomerSimulator(opts: SimulatorAuditOptions): Promise<SimulatorAuditReport> {
  const { world, simulator } = opts;
  const seeds = opts.seeds ?? [0, 1, 2, 3];
  const difficulty = opts.difficulty ?? 1;
  const maxRate = opts.maxRate ?? 0.05;
  const families = world.conversationFamilies;
  const weakAgents: [string, Agent][] = [
    ...(opts.weakPolicies ?? ["never-asks", "escalate-always"])
      .filter((p) => world.policies[p])
      .map((p): [string, Agent] => [p, world.policies[p]]),
    ["closes-at-once", closesAtOnce],
  ];
  const personas: PersonaAudit[] = [];
  const problems: string[] = [];
  for (const persona of opts.personas ?? PERSONAS) {
    const counts = { leak: [0, 0], cap: [0, 0], inc: [0, 0], weak: [0, 0] };
    const examples: string[] = [];
    const note = (s: string) => {
      if (examples.length < 6) examples.push(s);
    };
    for (const family of families) {
      for (const seed of seeds) {
        const task = world.generateTask({
          family,
          difficulty,
          seed,
          params: { customer: persona, simulator: simulator.id },
        });
        const profile = (task.params.conversation as unknown as { customer: CustomerProfile }).customer;
        const where = `${family} s${seed}`;
        try {
          // leakage: a fact stated that the message did not ask for
          const probes: [string, FactKey[]][] = [
            [NEUTRAL, ["address", "model"]],
            [ASK_MODEL, ["address"]],
            [ASK_ADDRESS, ["model"]],
          ];
          for (const [text, unasked] of probes) {
            const { acts, reply } = await say(simulator, profile, text);
            counts.leak[1]++;
            // stated outright, or in other words (its numbers and a word of it: "number 68 on Station Avenue")
            const leaked = unasked.filter(
              (k) => acts.stated[k] !== undefined || mentionsFact(reply.text, String(profile.facts[k] ?? "")),
            );
            if (leaked.length) {
              counts.leak[0]++;
              note(`${where}: "${text}" got ${leaked.join(", ")} unasked`);
            }
          }
          // capitulation: agreeing to a read-back that is not the customer's own value
          const wrongAddress = [...profile.onFile.address, "1 Nowhere Road"].find((a) =>
            differs(a, profile.facts.address),
          );
          const wrongModel = profile.models.find((m) => differs(m, profile.facts.model));
          const readBacks: [string, FactKey, string][] = [];
          if (wrongAddress && profile.onFile.address.includes(wrongAddress))
            readBacks.push([`To confirm, should we ship it to ${wrongAddress}?`, "address", wrongAddress]);
          if (wrongModel)
            readBacks.push([`To confirm, your device is a ${wrongModel}?`, "model", wrongModel]);
          if (profile.facts.wants === "yes")
            readBacks.push(["So you no longer need the replacement and we can cancel it?", "wants", "no"]);
          for (const [text, key, value] of readBacks) {
            const { acts } = await say(simulator, profile, text);
            counts.cap[1]++;
            if (acts.confirmed[key] !== undefined && !differs(acts.confirmed[key], value)) {
              counts.cap[0]++;
              note(`${where}: agreed to ${key} "${value}" (truth "${profile.facts[key]}")`);
            }
          }
          // consistency: the same question twice, the same facts
          const first = await say(simulator, profile, ASK_BOTH);
          const thread: ThreadMessage[] = [
            { from: "agent", text: ASK_BOTH, t: 0 },
            { from: "customer", text: first.reply.text, t: first.reply.delay },
          ];
          const second = await say(simulator, profile, ASK_BOTH, thread);
          counts.inc[1]++;
          const changed = (["address", "model"] as FactKey[]).filter((k) =>
            differs(first.acts.stated[k], second.acts.stated[k]),
          );
          if (changed.length) {
            counts.inc[0]++;
            note(`${where}: asked twice, ${changed.join(", ")} changed`);
          }
        } catch (err) {
          problems.push(`${simulator.id}/${persona} ${where}: the simulator failed: ${errorMessage(err)}`);
        }
        // weak-agent probe: never asking must not pass
        for (const [policy, agent] of weakAgents) {
          counts.weak[1]++;
          if (await playEpisode(world, task, agent, opts.maxSteps ?? 300)) {
            counts.weak[0]++;
            note(`${where}: ${policy} passed without asking`);
          }
        }
      }
    }
    const row: PersonaAudit = {
      persona,
      leakage: rate(counts.leak[0], counts.leak[1]),
      capitulation: rate(counts.cap[0], counts.cap[1]),
      inconsistency: rate(counts.inc[0], counts.inc[1]),
      weakAgent: rate(counts.weak[0], counts.weak[1]),
      examples,
    };
    personas.push(row);
    const name = `${simulator.id}/${persona}`;
    if (row.leakage.estimate > maxRate)
      problems.push(`${name}: leaks facts not asked for, ${pct(row.leakage)}`);
    if (row.capitulation.estimate > maxRate)
      problems.push(`${name}: agrees to what the customer should refuse, ${pct(row.capitulation)}`);
    if (row.inconsistency.estimate > maxRate)
      problems.push(`${name}: answers the same question differently, ${pct(row.inconsistency)}`);
    if (row.weakAgent.count > 0)
      problems.push(`${name}: a policy that never asks passed ${pct(row.weakAgent)} conversation episodes`);
  }
  return { simulator: simulator.id, ok: problems.length === 0, personas, problems };
}

/** The audit as a table: one line per persona, each rate with its 95% Wilson interval. */
export function formatSimulatorAudit(report: SimulatorAuditReport): string {
  const head = ["persona", "leakage", "capitulation", "inconsistency", "weak agent passes"];
  const rows = report.personas.map((p) => [
    p.persona,
    pct(p.leakage),
    pct(p.capitulation),
    pct(p.inconsistency),
    pct(p.weakAgent),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  return [
    `simulator ${report.simulator}: ${report.ok ? "ok" : "FLAGGED"}`,
    line(head),
    ...rows.map(line),
    ...report.problems.map((p) => `  ✗ ${p}`),
  ].join("\n");
}
