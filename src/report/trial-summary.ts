import type { TrialRecord } from "../core/contracts.ts";
import type { TrialSummary } from "../store/store.ts";

/** The summary row of a trial record (what a report table needs), as the store lists it. */
export function summarizeTrial(record: TrialRecord): TrialSummary {
  const s = record.spec;
  return {
    trialId: s.id,
    experimentId: s.experimentId,
    index: s.index,
    world: s.world,
    ...(s.variantId ? { variantId: s.variantId } : {}),
    family: s.family,
    difficulty: s.difficulty,
    agent: s.agent.id,
    seed: s.seed,
    repeat: s.repeat,
    outcome: record.outcome,
    reason: record.reason,
    passed: record.verdict ? record.verdict.passed : null,
    score: record.verdict ? record.verdict.score : null,
    violations: record.verdict ? record.verdict.violations.map((v) => v.code) : [],
    steps: record.stats.steps,
    stats: record.stats,
    trajectoryHash: record.trajectoryHash,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
  };
}
