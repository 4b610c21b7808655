/**
 * The curriculum's overhead per episode, as a ratio to `runTrial` alone: what sampling one key (with
 * the difficulty controller's eligibility), feeding the result back, summarizing the process signals
 * and storing the episode (plus a snapshot every 10 episodes) costs next to the trial itself, at 40 and
 * at 10,000 task keys. The trial is device-support's known-good policy on a short task; the overhead
 * is measured on the same machine in the same run, in interleaved rounds (medians).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { TrialRecord, TrialSpec } from "../src/core/contracts.ts";
import type { CurriculumHistory } from "../src/curriculum/history.ts";
import {
  createSampler,
  DifficultyController,
  type DifficultyOptions,
  familyOf,
  MemoryHistory,
  openCurriculumStore,
  processPenalty,
  summarizeProcess,
  type TaskKey,
  taskKeyId,
} from "../src/curriculum/index.ts";
import { DEFAULT_BUDGET } from "../src/runner/experiment.ts";
import { runTrial } from "../src/runner/trial.ts";
import { atMost, type BenchOptions, type BenchReport, type Figure } from "./figures.ts";
import { WORLD } from "./fixtures.ts";
import { median, spreadOf } from "./measure.ts";

const POLICY = WORLD.knownGood;

function spec(i: number): TrialSpec {
  const f = WORLD.families[i % WORLD.families.length];
  return {
    schemaVersion: 1,
    id: `cur-bench-${i}`,
    experimentId: "bench-curriculum",
    index: i,
    world: WORLD.id,
    family: f.name,
    difficulty: 1,
    seed: i,
    repeat: 0,
    agent: { id: POLICY, kind: "scripted", spec: POLICY },
    budget: { ...DEFAULT_BUDGET },
  };
}

/** `n` synthetic keys: families × 5 difficulties (the sampler only sees keys). */
function keys(n: number): TaskKey[] {
  const families = Math.ceil(n / 5);
  const out: TaskKey[] = [];
  for (let f = 0; f < families && out.length < n; f++) {
    for (let d = 1; d <= 5 && out.length < n; d++)
      out.push({ world: "bench@1", family: `f${f}`, difficulty: d });
  }
  return out;
}

/** One curriculum episode's bookkeeping around an already-run trial record. */
async function bookkeeping(
  n: number,
  strategy: string,
  episodes: number,
  records: TrialRecord[],
  history: CurriculumHistory,
  runId: string,
): Promise<number> {
  const space = keys(n);
  const families: DifficultyOptions["families"] = {};
  for (const k of space) {
    const f = familyOf(k);
    families[f] = [...(families[f] ?? []), k.difficulty];
  }
  const sampler = createSampler(strategy, { keys: space, seed: 1 });
  const controller = new DifficultyController({ families });
  const familyIds = space.map(familyOf);
  const eligible = (k: TaskKey, i: number) => controller.level(familyIds[i]) === k.difficulty;
  await history.createRun(runId, { strategy }, "2026-01-01T00:00:00.000Z");
  const t0 = performance.now();
  for (let i = 1; i <= episodes; i++) {
    const [key] = sampler.sample(1, { eligible });
    const record = records[i % records.length];
    const passed = i % 3 !== 0;
    const process = summarizeProcess(record.initial, record.steps);
    sampler.update([{ key, passed, process: processPenalty(process) }]);
    controller.record(familyOf(key), key.difficulty, passed ? 1 : 0);
    await history.saveEpisode(
      {
        run_id: runId,
        idx: i,
        task_key: taskKeyId(key),
        world: key.world,
        variant_id: null,
        family: key.family,
        difficulty: key.difficulty,
        split: "dynamic",
        seed: i,
        trial_id: record.spec.id,
        outcome: record.outcome,
        passed: passed ? 1 : 0,
        process: JSON.stringify(process),
        generation: JSON.stringify(record.task.generator),
      },
      i % 10 === 0 ? { sampler: sampler.snapshot(), difficulty: controller.snapshot() } : undefined,
    );
  }
  return (performance.now() - t0) / episodes;
}

export async function benchCurriculum(opts: BenchOptions = {}): Promise<BenchReport> {
  const started = performance.now();
  const log = opts.log ?? (() => {});
  const rounds = opts.quick ? 2 : 5;
  const trialsPerRound = opts.quick ? 40 : 120;
  const episodesPerRound = opts.quick ? 40 : 120;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-bench-curriculum-"));
  const store = await openCurriculumStore(path.join(dir, "store.db"));
  const series: Record<string, number[]> = {};
  const push = (k: string, v: number) => {
    series[k] ??= [];
    series[k].push(v);
  };
  try {
    const records: TrialRecord[] = [];
    for (let i = 0; i < 16; i++)
      records.push(await runTrial(spec(i), { world: WORLD, agent: WORLD.policies[POLICY] }));
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      for (let i = 0; i < trialsPerRound; i++)
        await runTrial(spec(i), { world: WORLD, agent: WORLD.policies[POLICY] });
      push("trial", (performance.now() - t0) / trialsPerRound);
      for (const n of [40, 10_000]) {
        for (const strategy of ["plr", "learnability"]) {
          push(
            `mem:${n}:${strategy}`,
            await bookkeeping(n, strategy, episodesPerRound, records, new MemoryHistory(), `r${r}`),
          );
        }
        push(`sqlite:${n}:plr`, await bookkeeping(n, "plr", episodesPerRound, records, store, `r${r}-${n}`));
      }
      log(`curriculum round ${r + 1}/${rounds}`);
    }
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const trialMs = median(series.trial);
  const figures: Figure[] = [
    {
      id: "run_trial_ms",
      label: "runTrial alone, per episode",
      value: trialMs,
      unit: "ms",
      spread: spreadOf(series.trial),
    },
  ];
  for (const n of [40, 10_000]) {
    for (const [variant, label] of [
      [`mem:${n}:plr`, `plr + bookkeeping in memory, ${n} keys`],
      [`mem:${n}:learnability`, `learnability + bookkeeping in memory, ${n} keys`],
      [`sqlite:${n}:plr`, `plr + bookkeeping in the SQLite store, ${n} keys`],
    ] as const) {
      const ms = median(series[variant]);
      const ratio = ms / trialMs;
      figures.push({
        id: `overhead_${variant.replace(/:/g, "_")}`,
        label: `curriculum overhead per episode: ${label}`,
        value: ms,
        unit: "ms",
        baseline: { label: "runTrial alone", value: trialMs },
        ratio,
        target: atMost(ratio, n === 40 ? 0.25 : 1, "× runTrial"),
        spread: spreadOf(series[variant]),
      });
    }
  }
  return {
    name: "curriculum",
    title: "Curriculum overhead per episode vs runTrial alone",
    figures,
    notes: [
      "overhead = sample(1) with the difficulty controller's eligibility + update + process summary + difficulty record + saveEpisode (+ a snapshot every 10 episodes)",
      "10,000 keys are synthetic (2,000 families × 5 difficulties); the difficulty controller leaves one eligible key per family",
      "targets (ours): ≤ 0.25× runTrial at 40 keys, ≤ 1× at 10,000 keys",
    ],
    seconds: (performance.now() - started) / 1000,
  };
}
