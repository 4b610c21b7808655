import type { Curriculum } from "./curriculum.ts";
import type { CurriculumGym } from "./curriculum-gym.ts";
import { type GenerationOutcome, type GenerationRequest, generateOne } from "./generation-batch.ts";
import { generateInThread } from "./generation-thread.ts";
import type { CurriculumReviewsTable, CurriculumTasksTable } from "./store-tables.ts";
import { type TaskKey, taskKeyId } from "./task-key.ts";

/** Pre-generation settings of a run: tasks per key, and how long a generator may take. */
export interface PoolOptions {
  /** The pool's id in the store (default: the run id); a pool filled and reviewed by `curriculum review --pool ID`. */
  id?: string;
  /** Tasks (seeds) pre-generated per base-world key. */
  perKey: number;
  /** A generation not answered within this (ms) fails and its thread is replaced (default 10,000). */
  timeoutMs?: number;
  /** A generation slower than this (ms) fails even when it returns (default: no budget). */
  budgetMs?: number;
  /** Only tasks approved in review (before the run started) may be sampled (default false). */
  requireReview?: boolean;
  /** Generate in a worker thread (default true); false generates inline (tests, a gym that cannot be described). */
  thread?: boolean;
}

/** Where a pool is cached: the store's curriculum tables (`curriculum_tasks`, `curriculum_reviews`), or memory. */
export interface TaskCache {
  saveTasks(rows: readonly CurriculumTasksTable[]): Promise<void>;
  tasks(poolId: string, status?: string): Promise<CurriculumTasksTable[]>;
  reviews(poolId: string): Promise<CurriculumReviewsTable[]>;
}

/** The base world's key of a key (variants share their base world's tasks). */
export function baseKey(key: TaskKey): TaskKey {
  return { world: key.world, family: key.family, difficulty: key.difficulty };
}

/** A pooled task's item id: `world/family/dN#seed`. */
export function poolItemId(key: TaskKey, seed: number): string {
  return `${taskKeyId(baseKey(key))}#${seed}`;
}

/** The requests that fill a pool: each base-world key of the space × `perKey` seeds (the curriculum's seeds 1..perKey). */
export function poolRequests(curriculum: Curriculum, perKey: number): GenerationRequest[] {
  const seen = new Set<string>();
  const out: GenerationRequest[] = [];
  for (const k of curriculum.sampler.keys) {
    const key = baseKey(k);
    const id = taskKeyId(key);
    if (seen.has(id)) continue;
    seen.add(id);
    for (let j = 1; j <= perKey; j++) out.push({ key, seed: curriculum.seedFor(key, j) });
  }
  return out;
}

function rowOf(poolId: string, o: GenerationOutcome, createdAt: string): CurriculumTasksTable {
  const v = o.verdict;
  return {
    run_id: poolId,
    item_id: poolItemId(o.request.key, o.request.seed),
    task_key: taskKeyId(o.request.key),
    seed: o.request.seed,
    content_hash: v.status === "failed" ? null : v.contentHash,
    status: v.status,
    reason: v.status === "accepted" ? "" : v.reason,
    task: o.task ? JSON.stringify(o.task) : null,
    known_good: v.status === "accepted" ? JSON.stringify(v.knownGood) : null,
    created_at: createdAt,
  };
}

/**
 * Fills the pool `poolId` of the cache: the requests not cached yet are generated and gated (in a
 * worker thread by default, so a slow or hanging generator never holds the caller), deduplicated by
 * content hash against the whole pool, and stored — failures too, with their reason (logged, never
 * fatal). Returns every row of the pool.
 */
export async function fillPool(
  requests: readonly GenerationRequest[],
  opts: {
    gym: Pick<CurriculumGym, "world" | "describe">;
    cache: TaskCache;
    poolId: string;
    pool: PoolOptions;
    now: () => Date;
    cwd?: string;
    clock?: () => number;
  },
): Promise<CurriculumTasksTable[]> {
  const existing = await opts.cache.tasks(opts.poolId);
  const have = new Set(existing.map((r) => r.item_id));
  const todo = requests.filter((r) => {
    const id = poolItemId(r.key, r.seed);
    if (have.has(id)) return false;
    have.add(id);
    return true;
  });
  if (todo.length === 0) return existing;
  const { pool } = opts;
  let outcomes: GenerationOutcome[];
  if (pool.thread === false) {
    outcomes = [];
    const clock = opts.clock ?? (() => performance.now());
    for (const r of todo)
      outcomes.push(
        await generateOne(opts.gym.world(r.key.world), r, {
          clock,
          ...(pool.budgetMs !== undefined ? { budgetMs: pool.budgetMs } : {}),
        }),
      );
  } else {
    outcomes = await generateInThread(todo, {
      description: opts.gym.describe(),
      cwd: opts.cwd ?? process.cwd(),
      ...(pool.timeoutMs !== undefined ? { timeoutMs: pool.timeoutMs } : {}),
      ...(pool.budgetMs !== undefined ? { budgetMs: pool.budgetMs } : {}),
    });
  }
  const seen = new Set(existing.filter((r) => r.status === "accepted").map((r) => r.content_hash));
  const createdAt = opts.now().toISOString();
  const rows = outcomes.map((o) => {
    const v = o.verdict;
    if (v.status === "accepted" && seen.has(v.contentHash))
      return rowOf(
        opts.poolId,
        { ...o, verdict: { status: "rejected", contentHash: v.contentHash, reason: "duplicate" } },
        createdAt,
      );
    if (v.status === "accepted") seen.add(v.contentHash);
    return rowOf(opts.poolId, o, createdAt);
  });
  await opts.cache.saveTasks(rows);
  return [...existing, ...rows];
}

/**
 * What a run may sample from a pool: the accepted tasks, minus those rejected in review before
 * `asOf` and, with `requireReview`, only those approved before it (so a resume sees what the run saw).
 * `seeds(key)` lists a key's sampleable seeds in ascending order.
 */
export function poolSeeds(
  rows: readonly CurriculumTasksTable[],
  reviews: readonly CurriculumReviewsTable[],
  opts: { requireReview?: boolean; asOf: string },
): (key: TaskKey) => readonly number[] {
  const decision = new Map<string, string>();
  for (const r of reviews) if (r.reviewed_at <= opts.asOf) decision.set(r.item_id, r.decision);
  const byKey = new Map<string, number[]>();
  for (const row of rows) {
    if (row.status !== "accepted") continue;
    const d = decision.get(row.item_id);
    if (d === "reject" || (opts.requireReview && d !== "approve")) continue;
    const list = byKey.get(row.task_key) ?? [];
    list.push(Number(row.seed));
    byKey.set(row.task_key, list);
  }
  for (const l of byKey.values()) l.sort((a, b) => a - b);
  return (key) => byKey.get(taskKeyId(baseKey(key))) ?? [];
}
