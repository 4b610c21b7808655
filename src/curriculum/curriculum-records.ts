/**
 * What a curriculum run records, as its result reads it: the episodes (numbered, infrastructure
 * attempts apart), the evaluations of its splits, and the generation record of each episode's task;
 * and how a stored row reads back as one.
 */
import { isInfraOutcome, type TrialRecord } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import type { ProcessSummary } from "./process-feedback.ts";
import type { CurriculumEpisodesTable, CurriculumEvaluationsTable } from "./store-tables.ts";
import type { TaskKey } from "./task-key.ts";

/** The generation record of an episode's task: enough to regenerate and compare it. */
export interface GenerationRecord {
  template: string;
  seed: number;
  params: JsonObject;
  ranges: JsonObject;
  contentHash: string;
  tags: string[];
  acceptance: { verifier: string; checks: string[] };
}

export interface CurriculumEpisode {
  index: number;
  world: string;
  variant?: string;
  family: string;
  difficulty: number;
  split: "dynamic";
  seed: number;
  trial: string;
  outcome: string;
  passed: boolean;
  process: ProcessSummary;
  generation: GenerationRecord;
}

/**
 * An attempt at an episode that ended with an infrastructure outcome (`infra_error`, `contaminated`,
 * `missing`): recorded, counted apart, never fed to the sampler or the difficulty; the episode was
 * retried with the same key and seed. `index` is the episode it attempted, `attempt` its row.
 */
export interface CurriculumInfraAttempt extends CurriculumEpisode {
  attempt: number;
}

export interface CurriculumEvaluation {
  after_episode: number;
  /** The split's tasks (the manifest's size). */
  planned: number;
  passed: number;
  /** Tasks that ended with an infrastructure outcome: counted apart, out of the pass rate. */
  infra?: number;
  manifest_hash: string;
  /** Each task's final trial; `retried`: how often it was re-run after an infrastructure outcome. */
  tasks: { key: string; seed: number; trial: string; outcome: string; passed: boolean; retried?: number }[];
}

export function isInfraRow(row: CurriculumEpisodesTable): boolean {
  return isInfraOutcome(row.outcome);
}

/** The task key a stored episode row was drawn for. */
export function keyOfRow(row: CurriculumEpisodesTable): TaskKey {
  return {
    world: row.world,
    ...(row.variant_id ? { variant: row.variant_id } : {}),
    family: row.family,
    difficulty: row.difficulty,
  };
}

/** An infrastructure attempt of episode `index` (stored as row `attempt`). */
export function attemptOf(row: CurriculumEpisodesTable, index: number): CurriculumInfraAttempt {
  return { ...episodeOf(row, index), attempt: row.idx };
}

/** A stored row as episode number `index` (infrastructure attempts are not counted as episodes). */
export function episodeOf(row: CurriculumEpisodesTable, index: number): CurriculumEpisode {
  return {
    index,
    world: row.world,
    ...(row.variant_id ? { variant: row.variant_id } : {}),
    family: row.family,
    difficulty: row.difficulty,
    split: "dynamic",
    seed: row.seed,
    trial: row.trial_id,
    outcome: row.outcome,
    passed: row.passed === 1,
    process: JSON.parse(row.process),
    generation: JSON.parse(row.generation),
  };
}

export function evaluationOf(row: CurriculumEvaluationsTable): CurriculumEvaluation {
  const tasks: CurriculumEvaluation["tasks"] = JSON.parse(row.tasks);
  const infra = tasks.filter((t) => isInfraOutcome(t.outcome)).length;
  return {
    after_episode: row.after_episode,
    planned: row.planned,
    passed: row.passed,
    ...(infra ? { infra } : {}),
    manifest_hash: row.manifest_hash,
    tasks,
  };
}

/** The generation record of an episode's trial (its task's template, seed, params, content hash, checks). */
export function generationOf(record: TrialRecord, verifier: string): GenerationRecord {
  const t = record.task;
  return {
    template: t?.generator?.template ?? "",
    seed: record.spec.seed,
    params: t?.params ?? {},
    ranges: t?.generator?.ranges ?? {},
    contentHash: t?.generator?.contentHash ?? "",
    tags: t?.tags ?? [],
    acceptance: {
      verifier: record.verdict?.verifier ?? verifier,
      checks: (record.verdict?.checks ?? []).map((c) => c.name),
    },
  };
}
