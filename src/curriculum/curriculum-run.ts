import type { ResolvedAgent } from "../agents/resolve.ts";
import { type Budget, isInfraOutcome, type TrialSpec } from "../core/contracts.ts";
import { configError, internalError } from "../core/errors.ts";
import { canonicalJson } from "../core/hash.ts";
import type { JsonObject } from "../core/json.ts";
import type { StartStates } from "../runner/clean-start.ts";
import type { Store } from "../store/store.ts";
import { DEFAULT_STRATEGY } from "./create-sampler.ts";
import { Curriculum, type CurriculumSnapshot } from "./curriculum.ts";
import type { CurriculumGym } from "./curriculum-gym.ts";
import {
  attemptOf,
  type CurriculumEpisode,
  type CurriculumEvaluation,
  type CurriculumInfraAttempt,
  episodeOf,
  evaluationOf,
  generationOf,
  isInfraRow,
  keyOfRow,
} from "./curriculum-records.ts";
import type { DifficultyOptions } from "./difficulty-controller.ts";
import { type CurriculumHistory, MemoryHistory } from "./history.ts";
import { type HorizonStage, horizonSchedule } from "./horizon-schedule.ts";
import { checkpointAgent, pruneCheckpoints, replayIfRecorded, resumeAgent } from "./learner-checkpoint.ts";
import { summarizeProcess } from "./process-feedback.ts";
import { heldoutManifest, regressionManifest, type TaskManifest } from "./regression-manifest.ts";
import { runSpecs } from "./run-specs.ts";
import type { SplitFile } from "./split-file.ts";
import { plannedSpecs } from "./split-specs.ts";
import type { CurriculumEpisodesTable, CurriculumTasksTable } from "./store-tables.ts";
import { type TaskKey, taskKeyId } from "./task-key.ts";
import { fillPool, type PoolOptions, poolRequests, poolSeeds } from "./task-pool.ts";

/** A curriculum run's settings: plain JSON, stored with the run (a resume reads them back). */
export interface CurriculumRunConfig {
  schemaVersion: 1;
  id: string;
  split: SplitFile;
  /** Agent spec, as `--agent` takes it. */
  agent: string;
  episodes: number;
  strategy: string;
  strategyOptions: JsonObject;
  seed: number;
  /** Evaluate the regression (and held-out) split after every this many episodes. */
  evalEvery: number;
  budget: Budget;
  /** Per-family difficulty adjustment, or `false` to let the sampler pick any difficulty. */
  difficulty: false | Omit<DifficultyOptions, "families">;
  /** Interaction-horizon stages (the turn cap by episode); absent: `budget.maxSteps` throughout. */
  horizon?: HorizonStage[];
  /** Store a sampler snapshot after every this many episodes (episodes between are replayed). */
  snapshotEvery: number;
  /**
   * Pre-generate tasks into the store's pool (`curriculum_tasks`, pool id = run id) before the first
   * episode and sample only keys with an accepted (and, with `requireReview`, approved) pooled task;
   * episodes cycle through their key's pooled seeds. Absent: tasks are generated at trial time.
   */
  pool?: PoolOptions;
}

export interface CurriculumResult {
  id: string;
  strategy: string;
  /** The episodes: attempts with an agent outcome, numbered 1.. in order. */
  episodes: CurriculumEpisode[];
  /** Attempts with an infrastructure outcome (retried; not episodes). */
  infra: CurriculumInfraAttempt[];
  regression: CurriculumEvaluation[];
  heldout: CurriculumEvaluation[];
  /** The manifest hash of the regression split (the same at every evaluation). */
  manifest_hash: string;
  snapshot: CurriculumSnapshot;
  /** Episodes run by this call (a resume runs only what is left). */
  ranNow: number;
  interrupted: boolean;
  /** The policy a learning agent ended this call with (its content hash; in the store when it trained). */
  policy?: string;
}

export interface CurriculumRunOptions {
  gym: CurriculumGym;
  /** Where the episodes' and evaluations' trials are recorded (experiments `ID`, `ID/regression`, `ID/heldout`). */
  store?: Store;
  /** The run's history (episodes, snapshots, evaluations): the store's curriculum tables, or memory. */
  history?: CurriculumHistory;
  cwd?: string;
  signal?: AbortSignal;
  now?: () => Date;
  onEpisode?: (episode: CurriculumEpisode) => void;
  /** Called for each attempt that ended with an infrastructure outcome (it is retried). */
  onInfra?: (attempt: CurriculumInfraAttempt) => void;
  /**
   * Infrastructure outcomes in a row (one episode retried) after which the run stops, `interrupted`
   * (resume it once the infrastructure is back). Default 3.
   */
  infraAttempts?: number;
  /** The agent, already resolved (skips resolving `config.agent`; a resume must pass the same one). */
  agent?: ResolvedAgent;
  /** Skip the clean-start check's fresh reference instance (the benchmark measures without it too). */
  checkCleanStart?: boolean;
  /** Called once the task pool is filled (with its rows), before the first episode. */
  onPool?: (rows: CurriculumTasksTable[]) => void;
}

/**
 * How often an evaluation re-runs a task whose trial ended with an infrastructure outcome (fixed: the
 * re-runs' trial ids and indexes, from `RETRY_INDEX` on, must be the same when a resume repeats them).
 */
const EVALUATION_RETRIES = 3;
const RETRY_INDEX = 1_000_000_000;

/** Fills a run config's defaults. */
export function curriculumConfig(
  input: Partial<CurriculumRunConfig> & Pick<CurriculumRunConfig, "id" | "split" | "agent" | "episodes">,
): CurriculumRunConfig {
  const c: CurriculumRunConfig = {
    schemaVersion: 1,
    strategy: DEFAULT_STRATEGY,
    strategyOptions: {},
    seed: 1,
    evalEvery: 50,
    budget: { maxSteps: 200, maxVirtualSeconds: 86400, wallTimeoutMs: 60000 },
    difficulty: {},
    snapshotEvery: 10,
    ...input,
  };
  if (!Number.isInteger(c.episodes) || c.episodes < 0)
    throw configError("bad_flag", "episodes must be a whole number");
  if (!Number.isInteger(c.evalEvery) || c.evalEvery < 1)
    throw configError("bad_flag", "eval-every must be >= 1");
  if (!Number.isInteger(c.snapshotEvery) || c.snapshotEvery < 1)
    throw configError("bad_flag", "snapshot-every must be >= 1");
  return c;
}

/** The parts of a config that fix what the run samples (how many episodes it runs does not). */
function planned(config: CurriculumRunConfig): string {
  const { episodes: _e, ...rest } = config;
  return canonicalJson(rest);
}

function curriculumOf(config: CurriculumRunConfig, gym: CurriculumGym): Curriculum {
  return new Curriculum(gym, {
    split: config.split,
    strategy: config.strategy,
    strategyOptions: config.strategyOptions,
    seed: config.seed,
    difficulty: config.difficulty,
  });
}

/**
 * Drives an agent through sampled episodes of the dynamic split: each episode samples a key (among the
 * keys at their family's current difficulty), runs and records the trial, feeds the result and its
 * process feedback to the sampler and the difficulty controller, and stores the episode (with a
 * snapshot every `snapshotEvery`). Every `evalEvery` episodes the frozen regression split (and the
 * held-out one) is run and stored with its manifest hash. Run again with the same id, it resumes: the
 * latest snapshot is restored, the episodes after it are replayed (each must draw the key it drew
 * before), so the same seed and history give the same next samples.
 */
export async function runCurriculum(
  config: CurriculumRunConfig,
  opts: CurriculumRunOptions,
): Promise<CurriculumResult> {
  const { gym } = opts;
  const now = opts.now ?? (() => new Date());
  const history = opts.history ?? new MemoryHistory();
  const state = curriculumOf(config, gym);
  const space = state.space;
  const regression = regressionManifest(config.split, gym);
  const heldout =
    space.heldout.length || config.split.heldout.tasks.length
      ? heldoutManifest(config.split, gym, space.heldout)
      : undefined;
  const worlds = [...new Set(space.dynamic.map((e) => e.key.world))].map((w) => gym.world(w));
  const resolved =
    opts.agent ??
    (await gym.resolveAgent(config.agent, {
      cwd: opts.cwd ?? process.cwd(),
      worlds,
      // a learner reads and saves its policies in the run's store (issue 25)
      ...(opts.store ? { policies: opts.store } : {}),
      now,
    }));
  const horizon = config.horizon ? horizonSchedule(config.horizon) : undefined;

  const createdAt = now().toISOString();
  const run = await history.createRun(config.id, config as unknown as Record<string, unknown>, createdAt);
  if (planned(run.config as unknown as CurriculumRunConfig) !== planned(config)) {
    throw configError(
      "curriculum_conflict",
      `curriculum run ${config.id} exists with other settings; resume it as it is or choose another id`,
    );
  }
  await history.setStatus(config.id, "running");
  const experiment = {
    config: { kind: "curriculum", ...(config as unknown as JsonObject) },
    createdAt: run.createdAt,
  };
  const startStates: StartStates = new Map();
  const runOptions = gym.runOptions();
  const common = {
    registry: runOptions.registry,
    environment: runOptions.environment,
    agent: resolved,
    ...(opts.store ? { store: opts.store } : {}),
    ...(opts.checkCleanStart === false ? {} : { startStates }),
    keepRunning: true,
  };

  // --- the task pool: pre-generated and gated off the run's thread, before any episode
  let filter: ((key: TaskKey) => boolean) | undefined;
  let pooledSeed: ((key: TaskKey) => number) | undefined;
  const uses = new Map<string, number>();
  if (config.pool) {
    const pool = await fillPool(poolRequests(state, config.pool.perKey), {
      gym,
      cache: history,
      poolId: config.pool.id ?? config.id,
      pool: config.pool,
      now,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
    });
    opts.onPool?.(pool);
    const seeds = poolSeeds(pool, await history.reviews(config.pool.id ?? config.id), {
      ...(config.pool.requireReview ? { requireReview: true } : {}),
      asOf: run.createdAt,
    });
    filter = (key) => seeds(key).length > 0;
    pooledSeed = (key) => {
      const id = taskKeyId(key);
      const n = uses.get(id) ?? 0;
      uses.set(id, n + 1);
      const list = seeds(key);
      return list[n % list.length];
    };
  }

  // --- restore: the latest snapshot, then replay the attempts after it. Every attempt is a row; an
  // attempt with an infrastructure outcome is not an episode: the sampler and the difficulty never saw
  // it, and the next row retried its key and seed without a draw.
  const rows = await history.episodes(config.id);
  rows.forEach((r, i) => {
    if (r.idx !== i + 1)
      throw internalError(
        "curriculum_history_gap",
        `curriculum run ${config.id}: episode ${i + 1} is missing from the history`,
      );
  });
  const retried = (i: number) => i > 0 && isInfraRow(rows[i - 1]);
  rows.forEach((r, i) => {
    if (!retried(i)) uses.set(r.task_key, (uses.get(r.task_key) ?? 0) + 1);
  });
  const done = rows.filter((r) => !isInfraRow(r)).length;
  const snap = await history.latestSnapshot(config.id, rows.length);
  if (snap) {
    const saved = snap.snapshot as CurriculumSnapshot;
    state.restore({
      ...saved,
      episode: Number.isInteger(saved?.episode) ? saved.episode : snap.afterEpisode,
    });
  }
  for (let i = snap?.afterEpisode ?? 0; i < rows.length; i++) {
    const row = rows[i];
    const key = retried(i) ? keyOfRow(rows[i - 1]) : state.nextKey(filter);
    if (taskKeyId(key) !== row.task_key) {
      throw internalError(
        "curriculum_history_diverged",
        `curriculum run ${config.id}: replaying episode ${row.idx} drew ${taskKeyId(key)}, the history says ${row.task_key}`,
      );
    }
    if (!isInfraRow(row)) state.record(key, row.passed === 1, JSON.parse(row.process));
  }

  // an episode's planned trial (the same when a resume plans it again for a learner)
  const episodeSpec = (key: TaskKey, seed: number, episodeNumber: number, index: number): TrialSpec => {
    const budget = horizon ? { ...config.budget, maxSteps: horizon(episodeNumber - 1) } : config.budget;
    const variant = state.variantOf(key);
    return plannedSpecs([{ key, ...(variant !== undefined ? { variant } : {}), seed }], {
      experimentId: config.id,
      agent: resolved.ref,
      budget,
      split: "dynamic",
      firstIndex: index,
    })[0];
  };
  // --- a learner (issue 25): its policy as checkpointed with that snapshot, and the episodes after it
  // played again in memory, so it continues with the policy it had (learner-checkpoint.ts)
  const replay = { registry: runOptions.registry, environment: runOptions.environment, agent: resolved };
  if (resolved.checkpoint && rows.length)
    await resumeAgent(resolved, {
      runId: config.id,
      rows,
      snapshot: snap,
      store: opts.store,
      replay,
      specOf: (row, n) => episodeSpec(keyOfRow(row), row.seed, n, row.idx),
    });
  let recordedBeforeKill = Boolean(resolved.checkpoint && opts.store);

  const evaluated = new Set(
    (await history.evaluations(config.id)).map((e) => `${e.split}@${e.after_episode}`),
  );
  const evaluate = async (after: number) => {
    const round = after / config.evalEvery;
    // an agent that learns is evaluated frozen, as it is now (greedy, no updates)
    const evaluation = { ...common, agent: resolved.frozen?.() ?? resolved };
    for (const m of [regression, heldout].filter((x): x is TaskManifest => x !== undefined)) {
      if (evaluated.has(`${m.split}@${after}`)) continue;
      const specs = plannedSpecs(m.tasks, {
        experimentId: `${config.id}/${m.split}`,
        agent: resolved.ref,
        budget: config.budget,
        split: m.split,
        firstIndex: (round - 1) * m.tasks.length,
        repeat: round,
      });
      const records = await runSpecs(specs, { ...evaluation, experiment });
      if (records.length < specs.length) return false;
      // a task whose trial ended with an infrastructure outcome is re-run (a new trial of the same task)
      const retried = new Array<number>(records.length).fill(0);
      for (let attempt = 1; attempt <= EVALUATION_RETRIES; attempt++) {
        const redo = records.flatMap((r, i) => (isInfraOutcome(r.outcome) ? [i] : []));
        if (!redo.length) break;
        const again = redo.map(
          (i) =>
            plannedSpecs([m.tasks[i]], {
              experimentId: `${config.id}/${m.split}`,
              agent: resolved.ref,
              budget: config.budget,
              split: m.split,
              firstIndex: RETRY_INDEX + ((round - 1) * m.tasks.length + i) * 8 + attempt,
              repeat: attempt * 1_000_000 + round,
            })[0],
        );
        const rerun = await runSpecs(again, { ...evaluation, experiment });
        if (rerun.length < again.length) return false;
        redo.forEach((i, j) => {
          records[i] = rerun[j];
          retried[i] = attempt;
        });
      }
      const tasks = records.map((r, i) => ({
        key: taskKeyId(m.tasks[i].key),
        seed: m.tasks[i].seed,
        trial: r.spec.id,
        outcome: r.outcome,
        passed: r.outcome === "passed",
        ...(retried[i] ? { retried: retried[i] } : {}),
      }));
      await history.saveEvaluation({
        run_id: config.id,
        after_episode: after,
        split: m.split,
        planned: specs.length,
        passed: tasks.filter((t) => t.passed).length,
        manifest_hash: m.hash,
        tasks: JSON.stringify(tasks),
      });
      evaluated.add(`${m.split}@${after}`);
    }
    return true;
  };

  // an evaluation cut short by a kill is run now
  for (let after = config.evalEvery; after <= done; after += config.evalEvery) await evaluate(after);

  let ranNow = 0;
  let interrupted = false;
  let episode = done;
  let attempt = rows.length;
  let pending = rows.length && isInfraRow(rows[rows.length - 1]) ? rows[rows.length - 1] : undefined;
  let infraInARow = 0;
  const maxInfra = opts.infraAttempts ?? 3;
  while (episode < config.episodes) {
    if (opts.signal?.aborted) {
      interrupted = true;
      break;
    }
    const next = episode + 1;
    const key = pending ? keyOfRow(pending) : state.nextKey(filter);
    const id = taskKeyId(key);
    const seed = pending ? pending.seed : pooledSeed ? pooledSeed(key) : state.seedFor(key, next);
    attempt++;
    const spec = episodeSpec(key, seed, next, attempt);
    // a trial a killed run recorded before it stored the episode is read back: a learner plays it first
    if (recordedBeforeKill && opts.store) await replayIfRecorded(config.id, spec, opts.store, replay);
    recordedBeforeKill = false;
    const [record] = await runSpecs([spec], { ...common, experiment });
    if (!record) {
      interrupted = true;
      break;
    }
    const infra = isInfraOutcome(record.outcome);
    const passed = record.outcome === "passed";
    const process = summarizeProcess(record.initial, record.steps);
    if (!infra) {
      state.record(key, passed, process);
      episode++;
    }
    const row: CurriculumEpisodesTable = {
      run_id: config.id,
      idx: attempt,
      task_key: id,
      world: key.world,
      variant_id: key.variant ?? null,
      family: key.family,
      difficulty: key.difficulty,
      split: "dynamic",
      seed,
      trial_id: spec.id,
      outcome: record.outcome,
      passed: passed ? 1 : 0,
      process: JSON.stringify(process),
      generation: JSON.stringify(generationOf(record, gym.world(key.world).verifier)),
    };
    const snapshotDue = !infra && (episode % config.snapshotEvery === 0 || episode === config.episodes);
    // with a learner, the snapshot names its policy (checkpointed in the store)
    const agent = snapshotDue
      ? await checkpointAgent(resolved, { runId: config.id, afterEpisode: attempt, now, store: opts.store })
      : undefined;
    await history.saveEpisode(
      row,
      snapshotDue ? { ...state.snapshot(), ...(agent ? { agent } : {}) } : undefined,
    );
    if (agent && opts.store) await pruneCheckpoints(opts.store, config.id, agent);
    if (infra) {
      // retried: the same key and seed, without a draw; the run stops after `infraAttempts` in a row
      pending = row;
      infraInARow++;
      opts.onInfra?.(attemptOf(row, next));
      if (infraInARow >= maxInfra) {
        interrupted = true;
        break;
      }
      continue;
    }
    pending = undefined;
    infraInARow = 0;
    ranNow++;
    opts.onEpisode?.(episodeOf(row, episode));
    if (episode % config.evalEvery === 0 && !(await evaluate(episode))) {
      interrupted = true;
      break;
    }
  }
  const finished = !interrupted && episode >= config.episodes;
  const status = finished ? "completed" : "interrupted";
  await history.setStatus(config.id, status);
  // the run's experiments (its episodes, its evaluations) end with the run's status
  if (opts.store)
    for (const id of [config.id, `${config.id}/regression`, `${config.id}/heldout`])
      if (await opts.store.getExperiment(id)) await opts.store.setExperimentStatus(id, status);
  // the run has ended for its agent (a learner saves its policy)
  const ended = await resolved.finish?.({ experimentId: config.id });
  const result = await readCurriculum(history, config.id);
  const policy = ended?.policy ? { policy: ended.policy } : {};
  return { ...result, snapshot: state.snapshot(), ranNow, interrupted, ...policy };
}

/** A stored run's summary (what `proving curriculum show` prints); `snapshot` is the latest stored one. */
export async function readCurriculum(
  history: CurriculumHistory,
  id: string,
): Promise<Omit<CurriculumResult, "ranNow" | "interrupted">> {
  const run = await history.getRun(id);
  if (!run)
    throw configError(
      "unknown_curriculum_run",
      `no curriculum run ${id} in the store (start one with \`proving curriculum run --id ${id}\`)`,
    );
  const config = run.config as unknown as CurriculumRunConfig;
  const episodes: CurriculumEpisode[] = [];
  const infra: CurriculumInfraAttempt[] = [];
  for (const row of await history.episodes(id)) {
    if (isInfraRow(row)) infra.push(attemptOf(row, episodes.length + 1));
    else episodes.push(episodeOf(row, episodes.length + 1));
  }
  const evaluations = await history.evaluations(id);
  const snap = await history.latestSnapshot(id, Number.MAX_SAFE_INTEGER);
  const regression = evaluations.filter((e) => e.split === "regression").map(evaluationOf);
  return {
    id,
    strategy: config.strategy,
    episodes,
    infra,
    regression,
    heldout: evaluations.filter((e) => e.split === "heldout").map(evaluationOf),
    manifest_hash: regression[0]?.manifest_hash ?? "",
    snapshot: snap?.snapshot as CurriculumSnapshot,
  };
}
