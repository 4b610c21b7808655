import type { Insertable, Selectable } from "kysely";
import { OUTCOMES, type Outcome, type TrialRecord, type TrialSpec, type Verdict } from "../core/contracts.ts";
import { ProvingError } from "../core/errors.ts";
import type { ManifestTable, StepsTable, TrialsTable, VerdictsTable } from "./schema.ts";
import type { TrialSummary } from "./store.ts";

/** The columns of a trials row that a summary needs (everything but the record JSON). */
export const SUMMARY_COLUMNS = [
  "trial_id",
  "experiment_id",
  "idx",
  "world",
  "family",
  "difficulty",
  "agent",
  "seed",
  "repeat",
  "variant_id",
  "outcome",
  "reason",
  "passed",
  "score",
  "violations",
  "steps",
  "virtual_seconds",
  "wall_ms",
  "tokens_in",
  "tokens_out",
  "cost_usd",
  "trajectory_hash",
  "started_at",
  "finished_at",
] as const;

export type SummaryRow = Pick<Selectable<TrialsTable>, (typeof SUMMARY_COLUMNS)[number]>;

/** The rows one trial record becomes. */
export interface TrialRows {
  trial: Insertable<TrialsTable>;
  steps: Insertable<StepsTable>[];
  verdict?: Insertable<VerdictsTable>;
}

const OUTCOME_SET: ReadonlySet<string> = new Set(OUTCOMES);

function invalidRecord(message: string, details?: unknown): ProvingError {
  return new ProvingError("invalid_trial_record", `cannot save trial record: ${message}`, {
    details,
  });
}

/** Checks the fields the store indexes on; the rest is stored as given. */
export function validateRecord(record: TrialRecord): void {
  const spec = record?.spec;
  if (!spec || typeof spec.id !== "string" || spec.id === "") throw invalidRecord("spec.id is missing");
  if (typeof spec.experimentId !== "string" || spec.experimentId === "") {
    throw invalidRecord(`spec.experimentId is missing (trial ${spec.id})`);
  }
  if (!OUTCOME_SET.has(record.outcome)) {
    throw invalidRecord(`unknown outcome "${record.outcome}" (trial ${spec.id})`, {
      outcome: record.outcome,
    });
  }
  if (!Array.isArray(record.steps)) throw invalidRecord(`steps is not an array (trial ${spec.id})`);
  if (!record.stats) throw invalidRecord(`stats is missing (trial ${spec.id})`);
}

export function trialToRows(record: TrialRecord): TrialRows {
  const { steps, verdict, ...rest } = record;
  const { spec, stats } = record;
  const trialId = spec.id;
  return {
    trial: {
      trial_id: trialId,
      experiment_id: spec.experimentId,
      idx: spec.index,
      world: spec.world,
      family: spec.family,
      difficulty: spec.difficulty,
      agent: spec.agent.id,
      seed: spec.seed,
      repeat: spec.repeat,
      variant_id: spec.variantId ?? null,
      outcome: record.outcome,
      reason: record.reason,
      passed: verdict === undefined ? null : verdict.passed ? 1 : 0,
      score: verdict === undefined ? null : verdict.score,
      violations: JSON.stringify(verdict === undefined ? [] : verdict.violations.map((v) => v.code)),
      steps: stats.steps,
      virtual_seconds: stats.virtualSeconds,
      wall_ms: stats.wallMs,
      tokens_in: stats.tokensIn,
      tokens_out: stats.tokensOut,
      cost_usd: stats.costUsd,
      trajectory_hash: record.trajectoryHash,
      started_at: record.startedAt,
      finished_at: record.finishedAt,
      record: JSON.stringify(rest),
    },
    steps: steps.map((step, idx) => ({ trial_id: trialId, idx, step: JSON.stringify(step) })),
    verdict: verdict === undefined ? undefined : { trial_id: trialId, verdict: JSON.stringify(verdict) },
  };
}

export function specToManifestRow(spec: TrialSpec): Insertable<ManifestTable> {
  return {
    experiment_id: spec.experimentId,
    trial_id: spec.id,
    idx: spec.index,
    spec: JSON.stringify(spec),
    world: spec.world,
    family: spec.family,
    difficulty: spec.difficulty,
    agent: spec.agent.id,
    seed: spec.seed,
    repeat: spec.repeat,
    variant_id: spec.variantId ?? null,
  };
}

const RECORD_KEY_ORDER = [
  "schemaVersion",
  "spec",
  "task",
  "outcome",
  "reason",
  "verdict",
  "initial",
  "steps",
  "stats",
  "trajectoryHash",
  "startedAt",
  "finishedAt",
];

/** Rebuilds a TrialRecord from its record JSON, step JSONs (in order) and verdict JSON. */
export function assembleRecord(recordJson: string, stepJsons: string[], verdictJson?: string): TrialRecord {
  const parts: Record<string, unknown> = JSON.parse(recordJson);
  parts.steps = stepJsons.map((s) => JSON.parse(s));
  if (verdictJson !== undefined) parts.verdict = JSON.parse(verdictJson) as Verdict;
  const out: Record<string, unknown> = {};
  for (const key of RECORD_KEY_ORDER) if (key in parts) out[key] = parts[key];
  for (const key of Object.keys(parts)) if (!(key in out)) out[key] = parts[key];
  return out as unknown as TrialRecord;
}

export function rowToSummary(row: SummaryRow): TrialSummary {
  const summary: TrialSummary = {
    trialId: row.trial_id,
    experimentId: row.experiment_id,
    index: Number(row.idx),
    world: row.world,
    family: row.family,
    difficulty: Number(row.difficulty),
    agent: row.agent,
    seed: Number(row.seed),
    repeat: Number(row.repeat),
    outcome: row.outcome as Outcome,
    reason: row.reason,
    passed: row.passed == null ? null : Number(row.passed) === 1,
    score: row.score == null ? null : Number(row.score),
    violations: JSON.parse(row.violations),
    steps: Number(row.steps),
    stats: {
      steps: Number(row.steps),
      virtualSeconds: Number(row.virtual_seconds),
      wallMs: Number(row.wall_ms),
      tokensIn: Number(row.tokens_in),
      tokensOut: Number(row.tokens_out),
      costUsd: Number(row.cost_usd),
    },
    trajectoryHash: row.trajectory_hash,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
  if (row.variant_id != null) summary.variantId = row.variant_id;
  return summary;
}
