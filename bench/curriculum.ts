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
import type { WorldDefinition } from "../src/core/registry.ts";
import type { CurriculumHistory } from "../src/curriculum/history.ts";
import {
  createCurriculum,
  MemoryHistory,
  openCurriculumStore,
  type SplitFile,
  summarizeProcess,
  taskKeyId,
} from "../src/curriculum/index.ts";
import { createGym } from "../src/gym/gym.ts";
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

/**
 * A gym whose one world has `n` synthetic keys: ceil(n/5) families × 5 difficulties (its tasks are
 * device-support's; only the regression manifest generates any), and the split over it.
 */
function space(n: number): { gym: ReturnType<typeof createGym>; split: SplitFile } {
  const families = Array.from({ length: Math.ceil(n / 5) }, (_, f) => ({
    name: `f${f}`,
    description: "synthetic",
    difficulties: [1, 2, 3, 4, 5].slice(0, Math.min(5, n - 5 * f)),
  }));
  const world: WorldDefinition = {
    ...WORLD,
    id: "bench@1",
    families,
    generateTask: (req) => ({
      ...WORLD.generateTask({ family: WORLD.families[0].name, difficulty: 1, seed: req.seed }),
      family: req.family,
      difficulty: req.difficulty,
    }),
  };
  const split: SplitFile = {
    schemaVersion: 1,
    name: `bench-${n}`,
    regression: { version: 1, tasks: [{ world: "bench@1", family: "f0", difficulty: 1, seeds: [1] }] },
    dynamic: { worlds: ["bench@1"] },
    heldout: { families: [], variants: [], seeds: [1], tasks: [] },
  };
  return { gym: createGym({ worlds: [world] }), split };
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
  const { gym, split } = space(n);
  const curriculum = createCurriculum(gym, { split, strategy, seed: 1 });
  await history.createRun(runId, { strategy }, "2026-01-01T00:00:00.000Z");
  const t0 = performance.now();
  for (let i = 1; i <= episodes; i++) {
    const key = curriculum.nextKey();
    const record = records[i % records.length];
    const passed = i % 3 !== 0;
    const process = summarizeProcess(record.initial, record.steps);
    curriculum.record(key, passed, process);
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
        seed: curriculum.seedFor(key, i),
        trial_id: record.spec.id,
        outcome: record.outcome,
        passed: passed ? 1 : 0,
        process: JSON.stringify(process),
        generation: JSON.stringify(record.task.generator),
      },
      i % 10 === 0 ? curriculum.snapshot() : undefined,
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
      "overhead = the Curriculum object runCurriculum drives: nextKey() (sample(1) with the difficulty controller's eligibility) + process summary + record() (sampler update, per-key process sums, difficulty) + saveEpisode (+ a snapshot every 10 episodes)",
      "10,000 keys are synthetic (2,000 families × 5 difficulties); the difficulty controller leaves one eligible key per family",
      "targets (ours): ≤ 0.25× runTrial at 40 keys, ≤ 1× at 10,000 keys",
    ],
    seconds: (performance.now() - started) / 1000,
  };
}
