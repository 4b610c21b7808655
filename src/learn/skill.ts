/** A skill: a lesson induced from trajectories, with where it came from. */
import type { Split } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";

/**
 * What a scripted learner can act on (LLM agents read `text`): the kinds the rule inducer knows.
 * - `reconcile_after_timeout`: after `tool` answers a retryable error, look the write up with `find`
 *   by its key and retry only with the same key;
 * - `approval_first`: read (and request) approval before the write `tool`;
 * - `follow_conditions`: apply the approval's conditions to the write's arguments;
 * - `confirm_before_claim`: when a write cannot be confirmed, escalate instead of claiming it.
 */
export type DirectiveKind =
  | "reconcile_after_timeout"
  | "approval_first"
  | "follow_conditions"
  | "confirm_before_claim";

export const DIRECTIVE_KINDS: readonly DirectiveKind[] = [
  "reconcile_after_timeout",
  "approval_first",
  "follow_conditions",
  "confirm_before_claim",
];

export interface SkillDirective {
  kind: DirectiveKind;
  /** The tool the lesson is about (e.g. the write). */
  tool?: string;
  /** The lookup tool (reconcile). */
  find?: string;
  /** The key argument of the write (reconcile). */
  keyArg?: string;
}

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
  /** `skill-<hash of the text and directive>`. */
  id: string;
  title: string;
  /** The lesson in words (what an LLM agent's prompt gets, and what retrieval indexes). */
  text: string;
  directive?: SkillDirective;
  /** The inducer that wrote it: `rule@1`, or `llm:<provider>:<model>`. */
  inducer: string;
  provenance: SkillProvenance;
  /** Anything else the inducer recorded. */
  extra?: JsonObject;
}
