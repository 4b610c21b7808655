/**
 * The preference export, one pair per decision: a passing and a failing trajectory of the same task
 * and seed (same world, variant, family, difficulty) share their history up to the first assistant
 * turn where they differ; that turn is the decision. `prompt` is the shared prefix (system, task,
 * then the turns both took and what the environment answered them), `chosen` and `rejected` are that
 * one assistant turn of each: no environment output is ever inside them, so DPO scores only the
 * model's own tokens. Two trajectories that never differ in an assistant turn (one stops where the
 * other goes on), or whose environment answered the same turn differently, make no pair.
 *
 * Dialect `trl`: TRL's conversational preference format with an explicit prompt (`{prompt, chosen,
 * rejected, tools}`; DPOTrainer and RewardTrainer read it). Dialect `openai`: OpenAI's DPO fine-tuning
 * line (`{input: {messages, tools}, preferred_output, non_preferred_output}`). Pairs are formed in
 * record order, each trajectory used once.
 */
import type { Outcome, TrialRecord } from "../core/contracts.ts";
import { canonicalJson } from "../core/hash.ts";
import {
  type AssistantMessage,
  type ChatMessage,
  type ChatTool,
  type ChatTurn,
  chatTurns,
  promptMessages,
  turnMessages,
} from "./chat-messages.ts";
import { type ChatEncoding, dialectOptions, encodedTools, type SftDialect } from "./sft-format.ts";

/** Outcomes that count as the rejected side: the agent's own failures. */
export const REJECTED_OUTCOMES: readonly Outcome[] = [
  "failed",
  "violated",
  "budget_exhausted",
  "timeout",
  "agent_error",
];

/** TRL's conversational preference line (explicit prompt). */
export interface PreferenceLine {
  prompt: ChatMessage[];
  chosen: [AssistantMessage];
  rejected: [AssistantMessage];
  tools: ChatTool[] | string;
}

/** OpenAI's DPO fine-tuning line. */
export interface OpenAiPreferenceLine {
  input: { messages: ChatMessage[]; tools: ChatTool[] | string };
  preferred_output: [AssistantMessage];
  non_preferred_output: [AssistantMessage];
}

export interface PreferencePair {
  chosen: TrialRecord;
  rejected: TrialRecord;
}

/** Where a pair's trajectories part: the shared prompt and each side's assistant turn there. */
export interface PreferenceDecision {
  prompt: ChatMessage[];
  chosen: AssistantMessage;
  rejected: AssistantMessage;
  /** Index of the decision among the agent's turns (0: the first reply). */
  turn: number;
}

/** What makes two trials the same task and seed. */
export function sameTaskKey(r: TrialRecord): string {
  const s = r.spec;
  return canonicalJson([s.world, s.variantId ?? "", s.family, s.difficulty, s.seed, r.task.id]);
}

export function preferencePairs(records: readonly TrialRecord[]): PreferencePair[] {
  const groups = new Map<string, { pass: TrialRecord[]; fail: TrialRecord[] }>();
  for (const r of records) {
    const side = r.outcome === "passed" ? "pass" : REJECTED_OUTCOMES.includes(r.outcome) ? "fail" : undefined;
    if (!side) continue;
    const key = sameTaskKey(r);
    const group = groups.get(key) ?? { pass: [], fail: [] };
    group[side].push(r);
    groups.set(key, group);
  }
  const pairs: PreferencePair[] = [];
  for (const { pass, fail } of groups.values()) {
    for (let i = 0; i < Math.min(pass.length, fail.length); i++)
      pairs.push({ chosen: pass[i], rejected: fail[i] });
  }
  return pairs;
}

/** The calls of a turn without their ids (the same decision whatever ids the two runs gave them). */
const callsKey = (turn: ChatTurn) => canonicalJson(turn.steps.map((s) => [s.action.tool, s.action.args]));
const resultsKey = (turn: ChatTurn) => canonicalJson(turn.results.map((m) => m.content));

/** The first assistant turn where the pair's trajectories differ, or undefined when there is none. */
export function preferenceDecision(
  pair: PreferencePair,
  dialect: SftDialect = "trl",
  encoding: ChatEncoding = {},
): PreferenceDecision | undefined {
  const options = dialectOptions(dialect, encoding);
  const chosen = chatTurns(pair.chosen.steps, options);
  const rejected = chatTurns(pair.rejected.steps, options);
  for (let i = 0; i < Math.min(chosen.length, rejected.length); i++) {
    if (callsKey(chosen[i]) !== callsKey(rejected[i])) {
      return {
        prompt: [...promptMessages(pair.chosen), ...turnMessages(chosen.slice(0, i))],
        chosen: chosen[i].assistant,
        rejected: rejected[i].assistant,
        turn: i,
      };
    }
    // the same turn answered differently: the histories part before any decision does
    if (resultsKey(chosen[i]) !== resultsKey(rejected[i])) return undefined;
  }
  return undefined;
}

/** The pair's line in a dialect, or undefined when its trajectories never part at a decision. */
export function preferenceLine(
  pair: PreferencePair,
  dialect: SftDialect = "trl",
  encoding: ChatEncoding = {},
): PreferenceLine | OpenAiPreferenceLine | undefined {
  const decision = preferenceDecision(pair, dialect, encoding);
  if (!decision) return undefined;
  const tools = encodedTools(pair.chosen, encoding.tools);
  if (dialect === "openai")
    return {
      input: { messages: decision.prompt, tools },
      preferred_output: [decision.chosen],
      non_preferred_output: [decision.rejected],
    };
  return { prompt: decision.prompt, chosen: [decision.chosen], rejected: [decision.rejected], tools };
}
