/**
 * Which recorded trials may become training data. Infrastructure failures (`infra_error`), a start
 * state that was not clean (`contaminated`) and trials that never ran (`missing`) never do; the
 * held-out split is left out unless it is asked for by name.
 */
import type { Outcome, Split, TrialRecord } from "../core/contracts.ts";

/** Outcomes that say nothing about the agent, so never training data. */
export const NEVER_TRAINED_ON: readonly Outcome[] = ["infra_error", "contaminated", "missing"];

export interface TrainingFilter {
  /** Only these outcomes (never one of `NEVER_TRAINED_ON`). */
  outcomes?: readonly Outcome[];
  /** Only trials of this variant id; `base` for the unmodified world. */
  variant?: string;
  /** Only this split; `heldout` is exported only when named here. */
  split?: Split;
  family?: string;
  agent?: string;
}

export type Exclusion = "infrastructure" | "heldout" | "filter" | "empty";

/** Why a record is left out, or undefined when it is training data under this filter. */
export function excludedBecause(record: TrialRecord, filter: TrainingFilter = {}): Exclusion | undefined {
  if (NEVER_TRAINED_ON.includes(record.outcome) || record.fault === "infrastructure") return "infrastructure";
  const split = record.task.split;
  if (filter.split ? split !== filter.split : split === "heldout") return filter.split ? "filter" : "heldout";
  if (filter.outcomes && !filter.outcomes.includes(record.outcome)) return "filter";
  if (filter.variant !== undefined && (record.spec.variantId ?? "base") !== filter.variant) return "filter";
  if (filter.family !== undefined && record.spec.family !== filter.family) return "filter";
  if (filter.agent !== undefined && record.spec.agent.id !== filter.agent) return "filter";
  if (!record.steps.some((s) => !s.setup)) return "empty";
  return undefined;
}
