import type { TrialRecord } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import type { Axis } from "../types.ts";

/** What a detector knows of the world besides the trajectory: its tools, as the spec names them. */
export interface DetectContext {
  /** Tools whose successful call ends the episode. */
  terminalTools: readonly string[];
  /** Write tools: those whose input schema carries an idempotency key (and any the world names). */
  writeTools: readonly string[];
}

/** One place a pattern shows in a trial: the step indices and detector-specific facts. */
export interface PatternHit {
  steps: number[];
  /** Data-only facts, e.g. `{tool: "issue_refund"}`; `tool` splits one pattern into diagnoses per tool. */
  facts: JsonObject;
}

/**
 * A named, world-agnostic weakness pattern: reads a trial's recorded steps and verdict (never the
 * agent's words) and returns where it shows.
 */
export interface PatternDetector {
  pattern: string;
  axis: Axis;
  /** One line: what the agent does wrong. */
  summary: string;
  detect(record: TrialRecord, ctx: DetectContext): PatternHit[];
}
