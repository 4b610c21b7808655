/**
 * The preference export: chosen/rejected pairs, a passing and a failing trajectory of the same task
 * and seed (same world, variant, family, difficulty), in TRL's conversational preference format with
 * an explicit prompt (`{prompt, chosen, rejected, tools}`; DPOTrainer and RewardTrainer read it).
 * Pairs are formed in record order, each trajectory used once.
 */
import type { Outcome, TrialRecord } from "../core/contracts.ts";
import { canonicalJson } from "../core/hash.ts";
import {
  type ChatMessage,
  type ChatTool,
  chatTools,
  promptMessages,
  stepMessages,
  trialTools,
} from "./chat-messages.ts";
import { dialectOptions } from "./sft-format.ts";

/** Outcomes that count as the rejected side: the agent's own failures. */
export const REJECTED_OUTCOMES: readonly Outcome[] = [
  "failed",
  "violated",
  "budget_exhausted",
  "timeout",
  "agent_error",
];

export interface PreferenceLine {
  prompt: ChatMessage[];
  chosen: ChatMessage[];
  rejected: ChatMessage[];
  tools: ChatTool[];
}

export interface PreferencePair {
  chosen: TrialRecord;
  rejected: TrialRecord;
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

export function preferenceLine(pair: PreferencePair): PreferenceLine {
  // TRL reads preference pairs: its dialect of the SFT export
  const options = dialectOptions("trl");
  return {
    prompt: promptMessages(pair.chosen),
    chosen: stepMessages(pair.chosen.steps, options),
    rejected: stepMessages(pair.rejected.steps, options),
    tools: chatTools(trialTools(pair.chosen)),
  };
}
