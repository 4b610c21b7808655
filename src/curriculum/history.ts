import type { CurriculumRunRow } from "./curriculum-store.ts";
import type {
  CurriculumEpisodesTable,
  CurriculumEvaluationsTable,
  CurriculumReviewsTable,
  CurriculumTasksTable,
} from "./store-tables.ts";
import type { TaskCache } from "./task-pool.ts";

/** What a curriculum run reads and writes of its history (and its task pool): the store's curriculum tables, or memory. */
export interface CurriculumHistory extends TaskCache {
  saveReview(row: CurriculumReviewsTable): Promise<void>;
  createRun(id: string, config: Record<string, unknown>, createdAt: string): Promise<CurriculumRunRow>;
  getRun(id: string): Promise<CurriculumRunRow | undefined>;
  setStatus(id: string, status: string): Promise<void>;
  saveEpisode(row: CurriculumEpisodesTable, snapshot?: unknown): Promise<void>;
  episodes(runId: string): Promise<CurriculumEpisodesTable[]>;
  latestSnapshot(
    runId: string,
    episode: number,
  ): Promise<{ afterEpisode: number; snapshot: unknown } | undefined>;
  saveEvaluation(row: CurriculumEvaluationsTable): Promise<void>;
  evaluations(runId: string): Promise<CurriculumEvaluationsTable[]>;
}

/** A history kept in memory (a run without a store, tests, the benchmark). Snapshots are copied through JSON. */
export class MemoryHistory implements CurriculumHistory {
  readonly #runs = new Map<string, CurriculumRunRow>();
  readonly #episodes = new Map<string, CurriculumEpisodesTable[]>();
  readonly #snapshots = new Map<string, Map<number, string>>();
  readonly #evaluations = new Map<string, CurriculumEvaluationsTable[]>();
  readonly #tasks = new Map<string, CurriculumTasksTable[]>();
  readonly #reviews = new Map<string, CurriculumReviewsTable[]>();

  async saveTasks(rows: readonly CurriculumTasksTable[]) {
    for (const row of rows) {
      const list = this.#tasks.get(row.run_id) ?? [];
      this.#tasks.set(row.run_id, [...list.filter((t) => t.item_id !== row.item_id), { ...row }]);
    }
  }

  async tasks(poolId: string, status?: string) {
    return (this.#tasks.get(poolId) ?? [])
      .filter((t) => !status || t.status === status)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.item_id.localeCompare(b.item_id))
      .map((t) => ({ ...t }));
  }

  async saveReview(row: CurriculumReviewsTable) {
    const list = this.#reviews.get(row.run_id) ?? [];
    this.#reviews.set(row.run_id, [...list.filter((r) => r.item_id !== row.item_id), { ...row }]);
  }

  async reviews(poolId: string) {
    return (this.#reviews.get(poolId) ?? [])
      .slice()
      .sort((a, b) => a.item_id.localeCompare(b.item_id))
      .map((r) => ({ ...r }));
  }

  async createRun(id: string, config: Record<string, unknown>, createdAt: string): Promise<CurriculumRunRow> {
    const existing = this.#runs.get(id);
    if (existing) return existing;
    const run = { id, createdAt, config, status: "running" };
    this.#runs.set(id, run);
    return run;
  }

  async getRun(id: string) {
    return this.#runs.get(id);
  }

  async setStatus(id: string, status: string) {
    const run = this.#runs.get(id);
    if (run) run.status = status;
  }

  async saveEpisode(row: CurriculumEpisodesTable, snapshot?: unknown) {
    const list = this.#episodes.get(row.run_id) ?? [];
    this.#episodes.set(
      row.run_id,
      [...list.filter((e) => e.idx !== row.idx), { ...row }].sort((a, b) => a.idx - b.idx),
    );
    if (snapshot !== undefined) {
      const m = this.#snapshots.get(row.run_id) ?? new Map<number, string>();
      m.set(row.idx, JSON.stringify(snapshot));
      this.#snapshots.set(row.run_id, m);
    }
  }

  async episodes(runId: string) {
    return (this.#episodes.get(runId) ?? []).map((e) => ({ ...e }));
  }

  async latestSnapshot(runId: string, episode: number) {
    let best: number | undefined;
    for (const k of this.#snapshots.get(runId)?.keys() ?? [])
      if (k <= episode && (best === undefined || k > best)) best = k;
    if (best === undefined) return undefined;
    return { afterEpisode: best, snapshot: JSON.parse(this.#snapshots.get(runId)?.get(best) as string) };
  }

  async saveEvaluation(row: CurriculumEvaluationsTable) {
    const list = this.#evaluations.get(row.run_id) ?? [];
    this.#evaluations.set(row.run_id, [
      ...list.filter((e) => !(e.after_episode === row.after_episode && e.split === row.split)),
      { ...row },
    ]);
  }

  async evaluations(runId: string) {
    return (this.#evaluations.get(runId) ?? [])
      .slice()
      .sort((a, b) => a.after_episode - b.after_episode || a.split.localeCompare(b.split));
  }
}
