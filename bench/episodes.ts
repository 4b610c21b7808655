import { fileURLToPath } from "node:url";
import type { Agent, TrialSpec } from "../src/core/contracts.ts";
import { defaultGym } from "../src/gym/index.ts";
import { DEFAULT_BUDGET, parseExperiment } from "../src/runner/experiment.ts";
import { runExperiment } from "../src/runner/run.ts";
import { runTrial } from "../src/runner/trial.ts";
import { against, type BenchOptions, type BenchReport, type Figure } from "./figures.ts";
import { WORLD } from "./fixtures.ts";
import { isolated, median, medianRatio, spreadOf } from "./measure.ts";

/** Short episodes: every family at difficulties 1 and 2, played by the known-good scripted policy. */
const FAMILIES = WORLD.families.map((f) => f.name);
const DIFFICULTIES = [1, 2];
const CELLS = FAMILIES.flatMap((family) => DIFFICULTIES.map((difficulty) => ({ family, difficulty })));
const POLICY = WORLD.knownGood;

function agent(): Agent {
  return WORLD.policies[POLICY];
}

function spec(i: number): TrialSpec {
  const cell = CELLS[i % CELLS.length];
  return {
    schemaVersion: 1,
    id: `episodes-t${i}`,
    experimentId: "bench-episodes",
    index: i,
    world: WORLD.id,
    family: cell.family,
    difficulty: cell.difficulty,
    seed: i,
    repeat: 0,
    agent: { id: POLICY, kind: "scripted", spec: POLICY },
    budget: { ...DEFAULT_BUDGET },
  };
}

/**
 * The baseline: what an episode costs without a runner: generate the task, reset a world, let the
 * policy act until the episode ends, read the verdict. No clean-start check, no records, no hash.
 */
export async function bareEpisode(i: number): Promise<number> {
  const s = spec(i);
  const task = WORLD.generateTask({ family: s.family, difficulty: s.difficulty, seed: s.seed });
  const env = WORLD.create();
  let observation = await env.reset({ task, seed: s.seed, episodeId: s.id });
  const session = await agent().start({
    episodeId: s.id,
    samplingSeed: 0,
    trialId: s.id,
    world: s.world,
    taskId: task.id,
    instruction: task.instruction,
    tools: env.spec.tools,
    seed: s.seed,
  });
  for (let step = 0; step < s.budget.maxSteps; step++) {
    const a = await session.act(observation);
    const r = await env.step({ tool: a.tool, args: a.args, callId: `call-${step}` });
    observation = r.observation;
    if (r.terminated || r.truncated) {
      const verdict = r.info.verdict ?? env.evaluate();
      if (!verdict.passed) throw new Error(`bench: ${POLICY} failed ${task.id}`);
      return step + 1;
    }
  }
  throw new Error(`bench: ${task.id} did not end`);
}

const BATCH = 160;
const CONCURRENCY = 64;
let next = 0;
let experiments = 0;
let gym: ReturnType<typeof defaultGym> | undefined;

/** The units of work the isolated processes run (one variant per process): a batch of episodes each. */
export async function workBare(): Promise<number> {
  for (let k = 0; k < BATCH; k++) await bareEpisode(next++);
  return BATCH;
}

async function trials(checkAfterEnd: boolean): Promise<number> {
  for (let k = 0; k < BATCH; k++) {
    const record = await runTrial(spec(next++), { world: WORLD, agent: agent(), checkAfterEnd });
    if (record.outcome !== "passed") throw new Error(`bench: trial ${record.outcome}: ${record.reason}`);
  }
  return BATCH;
}

export const workRunTrial = () => trials(true);
/** The same without the after-episode check (its timer turn is a wake-up of the event loop per trial). */
export const workNoAfterEnd = () => trials(false);

/** The whole runner: manifest, CONCURRENCY trials in flight, summaries (no store: see the store benchmark). */
export async function workExperiment(): Promise<number> {
  gym ??= defaultGym();
  const config = parseExperiment({
    id: `bench-episodes-${experiments++}`,
    worlds: [WORLD.id],
    families: FAMILIES,
    difficulties: DIFFICULTIES,
    trials: Math.ceil(BATCH / CELLS.length),
    seed: next,
    agents: [POLICY],
    concurrency: CONCURRENCY,
  });
  next += BATCH;
  const result = await runExperiment(config, gym.runOptions());
  const failed = result.trials.filter((t) => t.outcome !== "passed");
  if (failed.length) throw new Error(`bench: ${failed.length} experiment trials did not pass`);
  return result.trials.length;
}

export async function benchEpisodes(opts: BenchOptions = {}): Promise<BenchReport> {
  const t0 = performance.now();
  const concurrency = CONCURRENCY;
  let steps = 0;
  for (let i = 0; i < CELLS.length * 4; i++) steps += await bareEpisode(1_000_000 + i);
  const stepsPerEpisode = steps / (CELLS.length * 4);
  const rates = await isolated(
    fileURLToPath(import.meta.url),
    {
      bare: "workBare",
      runTrial: "workRunTrial",
      noAfterEnd: "workNoAfterEnd",
      runExperiment: "workExperiment",
    },
    {
      rounds: opts.quick ? 3 : 7,
      minMs: opts.quick ? 200 : 400,
      warmupMs: opts.quick ? 500 : 3000,
      log: opts.log,
    },
  );
  const bare = median(rates.bare.cpu);
  const baseline = { label: "bare", value: bare };
  const full = median(rates.runTrial.cpu);
  const exp = median(rates.runExperiment.cpu);
  const figures: Figure[] = [
    {
      id: "bare_episodes_per_s",
      label: "bare episode loop (baseline)",
      value: bare,
      unit: "episodes/s",
      spread: spreadOf(rates.bare.cpu),
      wall: median(rates.bare.wall),
    },
    against(
      {
        id: "runtrial_episodes_per_s",
        label: "runTrial, one at a time",
        value: full,
        unit: "episodes/s",
        spread: spreadOf(rates.runTrial.cpu),
        wall: median(rates.runTrial.wall),
      },
      baseline,
    ),
    against(
      {
        id: "runtrial_no_after_end_episodes_per_s",
        label: "runTrial, after-episode check off",
        value: median(rates.noAfterEnd.cpu),
        unit: "episodes/s",
        spread: spreadOf(rates.noAfterEnd.cpu),
        wall: median(rates.noAfterEnd.wall),
      },
      baseline,
    ),
    against(
      {
        id: "experiment_episodes_per_s",
        label: `runExperiment, ${concurrency} in flight`,
        value: exp,
        unit: "episodes/s",
        spread: spreadOf(rates.runExperiment.cpu),
        wall: median(rates.runExperiment.wall),
      },
      baseline,
    ),
    {
      id: "runtrial_over_bare",
      label: "runTrial cost per episode ÷ bare",
      value: medianRatio(rates.bare.cpu, rates.runTrial.cpu),
      unit: "×",
    },
    {
      id: "runner_overhead_us",
      label: "runner CPU per episode beyond bare",
      value: 1e6 / full - 1e6 / bare,
      unit: "µs",
    },
    {
      id: "steps_per_episode",
      label: "steps per episode (mean)",
      value: stepsPerEpisode,
      unit: "steps",
    },
  ];
  return {
    name: "episodes",
    title: "Episodes/s: short episodes (reset + ~8 steps + verdict), scripted known-good policy",
    figures,
    notes: [
      `${POLICY} on every device-support family at difficulties ${DIFFICULTIES.join(", ")}, a new seed per episode, ${BATCH} episodes per unit of work; each variant of each round in a fresh process (warmed up, then measured).`,
      "bare = generateTask + world reset + policy + steps + verdict; runTrial adds the clean-start check (reference instance, state hashes), the wall-clock deadline, step records, the trajectory hash and the after-episode check (one event-loop timer turn per trial: ≥ 1 ms of wall clock when trials run one at a time, and the wake-up costs CPU too).",
      "runExperiment = the whole runner without a store (manifest, concurrency, summaries). Rates per CPU-second, wall-clock in brackets.",
    ],
    seconds: (performance.now() - t0) / 1000,
  };
}
