/** Provenance of a skill from the trials that support it. */
import type { Split, TrialRecord } from "../core/contracts.ts";
import type { SkillProvenance } from "./skill.ts";

const uniq = <T>(xs: T[]): T[] => [...new Set(xs)];

export function provenanceOf(records: readonly TrialRecord[]): SkillProvenance {
  return {
    trials: records.map((r) => r.spec.id),
    variants: uniq(records.map((r) => r.spec.variantId ?? "base")),
    splits: uniq(records.map((r) => r.task.split as Split)),
    worlds: uniq(records.map((r) => r.spec.world)),
    families: uniq(records.map((r) => r.spec.family)),
    successes: records.filter((r) => r.outcome === "passed").length,
    failures: records.filter((r) => r.outcome !== "passed").length,
  };
}
