/**
 * A skill: a lesson induced from trajectories, in words, with where it came from. Any agent may take
 * it (an LLM agent in its system prompt, any other agent in its task's `context.skills`); nothing in a
 * skill is a switch an agent turns on: what the agent does with the text is the agent's.
 */
import type { Split } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";

/** Where a skill came from: the trials that support it, their variants and splits. */
export interface SkillProvenance {
  trials: string[];
  /** Variant ids of those trials (`base` for the unmodified world). */
  variants: string[];
  splits: Split[];
  worlds: string[];
  families: string[];
  /** Of the supporting trials, how many passed and how many failed. */
  successes: number;
  failures: number;
}

export interface Skill {
  /** `skill-<hash>` (the rule inducer: of the lesson it matched; the LLM inducer: of the text). */
  id: string;
  title: string;
  /** The lesson in words: what an agent is given, and what retrieval indexes. */
  text: string;
  /** The inducer that wrote it: `rule@1`, or `llm:<provider>:<model>`. */
  inducer: string;
  provenance: SkillProvenance;
  /** Anything else the inducer recorded (the rule inducer: the `pattern` it matched), for people: no agent reads it. */
  extra?: JsonObject;
}
