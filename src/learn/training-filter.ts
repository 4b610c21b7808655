/**
 * Which recorded trials may become training data. Infrastructure failures (`infra_error`), a start
 * state that was not clean (`contaminated`) and trials that never ran (`missing`) never do; the
 * held-out split is left out unless it is asked for by name.
 */
import { INFRA_OUTCOMES, type Outcome, type Split, type TrialRecord } from "../core/contracts.ts";

/** Outcomes that say nothing about the agent, so never training data (`INFRA_OUTCOMES`). */
export const NEVER_TRAINED_ON: readonly Outcome[] = INFRA_OUTCOMES;

export interface TrainingFilter {
  /** Only these outcomes (never one of `NEVER_TRAINED_ON`). */
  outcomes?: readonly Outcome[];
  /** Only trials of this variant id; `base` for the unmodified world. */
  variant?: string;
  /** Only this split; `heldout` is exported only when named here or with `includeHeldout`. */
  split?: Split;
  /** Keep held-out trials too (without `split`: every split). Default: held-out trials are left out. */
  includeHeldout?: boolean;
  family?: string;
  agent?: string;
}

export type Exclusion = "infrastructure" | "heldout" | "filter" | "empty";

/** Why a record is left out, or undefined when it is training data under this filter. */
export function excludedBecause(record: TrialRecord, filter: TrainingFilter = {}): Exclusion | undefined {
  if (NEVER_TRAINED_ON.includes(record.outcome) || record.fault === "infrastructure") return "infrastructure";
  const bySplit = splitExcluded(record, filter);
  if (bySplit) return bySplit;
  if (filter.outcomes && !filter.outcomes.includes(record.outcome)) return "filter";
  if (filter.variant !== undefined && (record.spec.variantId ?? "base") !== filter.variant) return "filter";
  if (filter.family !== undefined && record.spec.family !== filter.family) return "filter";
  if (filter.agent !== undefined && record.spec.agent.id !== filter.agent) return "filter";
  if (!record.steps.some((s) => !s.setup)) return "empty";
  return undefined;
}

/**
 * Whether the split filter leaves a record out: another split than `filter.split` (`filter`), or a
 * held-out trial not asked for (`heldout`: only `split: "heldout"` or `includeHeldout` keep one).
 */
export function splitExcluded(
  record: Pick<TrialRecord, "task">,
  filter: Pick<TrainingFilter, "split" | "includeHeldout"> = {},
): "filter" | "heldout" | undefined {
  const split = record.task.split;
  if (filter.split) return split === filter.split ? undefined : "filter";
  return split === "heldout" && !filter.includeHeldout ? "heldout" : undefined;
}
