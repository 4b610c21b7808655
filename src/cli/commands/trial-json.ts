import type { TrialSummary } from "../../core/trial-summary.ts";

/** A trial's row in `run --json` and `run --split --json` (`run` adds score, violations and steps). */
export function trialJson(t: TrialSummary) {
  return {
    id: t.trialId,
    agent: t.agent,
    world: t.world,
    ...(t.variantId ? { variant: t.variantId } : {}),
    family: t.family,
    difficulty: t.difficulty,
    seed: t.seed,
    outcome: t.outcome,
    passed: t.outcome === "passed",
  };
}
