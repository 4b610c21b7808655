/**
 * The summary row of a trial: what a report table, a comparison or a run's result needs of a trial,
 * without its steps, task or verdict details. Every planned trial has one: a recorded trial's comes
 * from its record (or the store), a planned trial without a record is `missing`.
 */
import type { Outcome, TrialRecord, TrialSpec, TrialStats } from "./contracts.ts";

/** One trial without its steps, task or verdict details: what a report table needs. */
export interface TrialSummary {
  trialId: string;
  experimentId: string;
  index: number;
  world: string;
  variantId?: string;
  family: string;
  difficulty: number;
  /** Agent display id (`AgentRef.id`). */
  agent: string;
  seed: number;
  repeat: number;
  outcome: Outcome;
  reason: string;
  /** `null` when the trial has no verdict (it never reached the verifier). */
  passed: boolean | null;
  score: number | null;
  /** Codes of the verdict's violations, in order. */
  violations: string[];
  steps: number;
  stats: TrialStats;
  trajectoryHash: string;
  startedAt: string;
  finishedAt: string;
}

/** The columns of a summary row that come from the planned trial itself. */
function plannedColumns(s: TrialSpec) {
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
  };
}

/** The summary row of a trial record, as the store lists it. */
export function summarizeTrial(record: TrialRecord): TrialSummary {
  return {
    ...plannedColumns(record.spec),
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

/** The row of a planned trial that has no record: it counts, as `missing`. */
export function missingSummary(spec: TrialSpec): TrialSummary {
  return {
    ...plannedColumns(spec),
    outcome: "missing",
    reason: "planned, never ran",
    passed: null,
    score: null,
    violations: [],
    steps: 0,
    stats: { steps: 0, virtualSeconds: 0, wallMs: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 },
    trajectoryHash: "",
    startedAt: "",
    finishedAt: "",
  };
}

/** A manifest joined with the rows recorded for it. */
export interface ManifestRows {
  /** One row per planned trial, in manifest order: its recorded row, or `missing`. */
  rows: TrialSummary[];
  /** Recorded rows of trials the manifest does not plan (there should be none), in the order given. */
  unplanned: TrialSummary[];
}

/**
 * Joins a manifest with the rows recorded for it (by trial id): every planned trial gets exactly one
 * row, recorded or `missing`, so a planned trial that never ran still counts in every denominator.
 */
export function manifestRows(manifest: readonly TrialSpec[], recorded: Iterable<TrialSummary>): ManifestRows {
  const byId = new Map<string, TrialSummary>();
  for (const r of recorded) byId.set(r.trialId, r);
  const rows = manifest.map((spec) => byId.get(spec.id) ?? missingSummary(spec));
  const unplanned: TrialSummary[] = [];
  if (byId.size > 0) {
    const planned = new Set(manifest.map((s) => s.id));
    for (const r of byId.values()) if (!planned.has(r.trialId)) unplanned.push(r);
  }
  return { rows, unplanned };
}
