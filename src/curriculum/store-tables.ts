/** The curriculum's tables (migrations `curriculum`, version 3, and `curriculum-variants`, 5, in src/store/migrations.ts), as kysely sees them. */
export interface CurriculumRunsTable {
  id: string;
  created_at: string;
  /** JSON CurriculumRunConfig. */
  config: string;
  status: string;
}

export interface CurriculumEpisodesTable {
  run_id: string;
  /** 1-based episode index. */
  idx: number;
  task_key: string;
  world: string;
  variant_id: string | null;
  family: string;
  difficulty: number;
  split: string;
  seed: number;
  trial_id: string;
  outcome: string;
  passed: number;
  /** JSON ProcessSummary. */
  process: string;
  /** JSON GenerationRecord. */
  generation: string;
}

export interface CurriculumSnapshotsTable {
  run_id: string;
  after_episode: number;
  /** JSON CurriculumSnapshot. */
  snapshot: string;
}

export interface CurriculumEvaluationsTable {
  run_id: string;
  after_episode: number;
  split: string;
  planned: number;
  passed: number;
  manifest_hash: string;
  /** JSON [{key, seed, trial_id, outcome, passed}]. */
  tasks: string;
}

export interface CurriculumTasksTable {
  run_id: string;
  item_id: string;
  task_key: string;
  seed: number;
  content_hash: string | null;
  /** accepted | rejected | failed */
  status: string;
  reason: string;
  task: string | null;
  /** JSON of the known-good policy's trajectory summary (actions), when it ran. */
  known_good: string | null;
  created_at: string;
}

export interface CurriculumReviewsTable {
  run_id: string;
  item_id: string;
  /** approve | reject */
  decision: string;
  note: string;
  reviewed_at: string;
}

/** A harness variant offered to the dynamic split (migration `curriculum-variants`, version 5). */
export interface CurriculumVariantsTable {
  variant_id: string;
  /** JSON harness variant spec `{world, layers}`. */
  variant: string;
  /** JSON: where the variant came from (the rigger's record). */
  provenance: string;
  /** accepted | rejected */
  status: string;
  created_at: string;
}

export interface CurriculumDatabase {
  curriculum_runs: CurriculumRunsTable;
  curriculum_episodes: CurriculumEpisodesTable;
  curriculum_snapshots: CurriculumSnapshotsTable;
  curriculum_evaluations: CurriculumEvaluationsTable;
  curriculum_tasks: CurriculumTasksTable;
  curriculum_reviews: CurriculumReviewsTable;
  curriculum_variants: CurriculumVariantsTable;
}
