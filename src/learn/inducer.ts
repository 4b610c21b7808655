/** An inducer turns trial records into skills, and says how it did (its prompt, when it has one). */
import type { TrialRecord } from "../core/contracts.ts";
import { induceRuleSkills, RULE_INDUCER_ID, type RuleInducerOptions } from "./rule-inducer.ts";
import type { Skill } from "./skill.ts";
import type { InductionRecord } from "./skill-bank.ts";

export interface Induction {
  skills: Skill[];
  record: InductionRecord;
}

export interface Inducer {
  readonly id: string;
  induce(records: readonly TrialRecord[]): Promise<Induction>;
}

/** The offline, rule-based inducer as an `Inducer`. */
export function ruleInducer(options: RuleInducerOptions = {}): Inducer {
  return {
    id: RULE_INDUCER_ID,
    async induce(records) {
      const skills = induceRuleSkills(records, options);
      return { skills, record: { inducer: RULE_INDUCER_ID, trials: records.length, skills: skills.length } };
    },
  };
}
