import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { StepRecord, Task } from "../src/core/contracts.ts";
import { EffectLog } from "../src/core/effect-log.ts";
import { Rng } from "../src/core/rng.ts";
import { runTrial } from "../src/runner/trial.ts";
import { TOOLS, type ToolContext } from "../src/worlds/device-support/tools.ts";
import { DeviceSupportWorld, initialState } from "../src/worlds/device-support/world.ts";
import { against, atLeast, atMost, type BenchOptions, type BenchReport, type Figure } from "./figures.ts";
import {
  action,
  benchSpec,
  benchTask,
  type CaseIds,
  caseIdsOf,
  closeAction,
  mixAction,
  mixAgent,
  toolMix,
  WORLD,
} from "./fixtures.ts";
import { isolated, median, medianRatio, spreadOf } from "./measure.ts";

const TOOL_BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

/**
 * The baseline: the tool handlers called in a loop on a fresh start state, arguments already
 * typed, no validation, no trace, no agent. What the world's logic costs and nothing else.
 */
export function bareEpisode(task: Task, ids: CaseIds, steps: number): number {
  const state = initialState(task, 1, "bench");
  const effects = new EffectLog();
  const rng = Rng.fromState(state.rng);
  const calls = toolMix(ids).map((c) => ({ tool: TOOL_BY_NAME.get(c.tool)!, args: c.args }));
  const ctx: ToolContext & { step: number } = {
    state,
    step: 0,
    schedule: () => undefined,
    logEffect: (effect) => {
      effects.append({ t: state.now, step: ctx.step, ...effect });
    },
    spend: (seconds) => {
      state.now += seconds;
    },
    newId: (prefix, counter) => `${prefix}-${++state.counters[counter]}${rng.id(4).toUpperCase()}`,
  };
  let ok = 0;
  for (let i = 0; i < steps; i++) {
    const call = calls[i % calls.length];
    ctx.step = i;
    if (call.tool.run(call.args, ctx).ok) ok++;
  }
  if (ok !== steps) throw new Error(`bench: bare loop got ${steps - ok} error results`);
  return steps;
}

/** The world's own `reset` / `step` (validation, rate limits, clock, trace), then the verdict. */
export async function worldEpisode(task: Task, ids: CaseIds, steps: number): Promise<number> {
  const world = new DeviceSupportWorld();
  await world.reset({ task, seed: 1 });
  let reference = "";
  for (let i = 0; i < steps; i++) {
    const r = await world.step(action(mixAction(ids, i), `call-${i}`));
    if (r.observation.kind === "tool_result" && r.observation.tool === "create_replacement") {
      const result = r.observation.result;
      if (result.ok) reference = String(result.request_id);
    }
  }
  const last = await world.step(action(closeAction(ids, reference), `call-${steps}`));
  if (!last.terminated || !last.info.verdict?.passed) throw new Error("bench: world episode did not pass");
  return steps + 1;
}

/** The runner's `runTrial`: agent session, budgets, validation, trace and step records, verdict, hash. */
export async function fullEpisode(steps: number, index = 0): Promise<number> {
  const record = await runTrial(benchSpec(index, steps + 1), { world: WORLD, agent: mixAgent({ steps }) });
  if (record.outcome !== "passed") throw new Error(`bench: trial ${record.outcome}: ${record.reason}`);
  return record.stats.steps;
}

let trajectory: StepRecord[] | undefined;

/**
 * The least any hashed trajectory costs: each step of a recorded episode as plain `JSON.stringify`
 * (no key sorting, so less than canonical JSON) through sha256. With `world.step`, a floor under the
 * full path that no runner recording a hash of every step can go below.
 */
export async function hashFloorEpisode(steps: number): Promise<number> {
  trajectory ??= (await runTrial(benchSpec(0, steps + 1), { world: WORLD, agent: mixAgent({ steps }) }))
    .steps;
  const hash = createHash("sha256");
  for (const s of trajectory) {
    hash.update(JSON.stringify([s.action, s.observation, s.reward, s.t, s.terminated, s.truncated]));
  }
  hash.digest();
  return trajectory.length;
}

export const FULL_PATH_TARGET = 200_000;
/** The full path may cost at most this many times `world.step` per step (issue 28). */
export const FULL_OVER_WORLD_TARGET = 3;

/** Tool calls per episode in this benchmark. */
const STEPS = 1000;
let fixture: { task: Task; ids: CaseIds } | undefined;
const bench = () => {
  if (!fixture) {
    const task = benchTask(1);
    fixture = { task, ids: caseIdsOf(task) };
  }
  return fixture;
};

/** The units of work the isolated processes run (one variant per process). */
export const workBare = () => bareEpisode(bench().task, bench().ids, STEPS);
export const workWorld = () => worldEpisode(bench().task, bench().ids, STEPS);
export const workFull = () => fullEpisode(STEPS);
export const workHashFloor = () => hashFloorEpisode(STEPS);

export async function benchWorldSteps(opts: BenchOptions = {}): Promise<BenchReport> {
  const t0 = performance.now();
  const steps = STEPS;
  // each variant in its own process: in one process the bare loop and world.step would make the
  // shared code (tool handlers, hashing) polymorphic and slow the full path down
  const rates = await isolated(
    fileURLToPath(import.meta.url),
    { bare: "workBare", world: "workWorld", full: "workFull", hash: "workHashFloor" },
    {
      rounds: opts.quick ? 3 : 7,
      minMs: opts.quick ? 200 : 400,
      warmupMs: opts.quick ? 500 : 1500,
      log: opts.log,
    },
  );
  const bare = median(rates.bare.cpu);
  const world = median(rates.world.cpu);
  const full = median(rates.full.cpu);
  const costRatio = medianRatio(rates.bare.cpu, rates.full.cpu);
  const overWorld = medianRatio(rates.world.cpu, rates.full.cpu);
  const baseline = { label: "bare", value: bare };
  const figures: Figure[] = [
    {
      id: "bare_steps_per_s",
      label: "bare tool loop (baseline)",
      value: bare,
      unit: "steps/s",
      spread: spreadOf(rates.bare.cpu),
      wall: median(rates.bare.wall),
    },
    against(
      {
        id: "world_steps_per_s",
        label: "world.step loop",
        value: world,
        unit: "steps/s",
        spread: spreadOf(rates.world.cpu),
        wall: median(rates.world.wall),
      },
      baseline,
    ),
    against(
      {
        id: "full_steps_per_s",
        label: "full runner path (runTrial)",
        value: full,
        unit: "steps/s",
        spread: spreadOf(rates.full.cpu),
        wall: median(rates.full.wall),
        target: atLeast(full, FULL_PATH_TARGET, "steps/s"),
      },
      baseline,
    ),
    {
      id: "full_step_us",
      label: "full path, CPU time per step",
      value: 1e6 / full,
      unit: "µs",
    },
    {
      id: "full_over_bare",
      label: "full path cost per step ÷ bare",
      value: costRatio,
      unit: "×",
      target: atMost(costRatio, 2, "×"),
    },
    {
      id: "full_over_world",
      label: "full path cost per step ÷ world.step",
      value: overWorld,
      unit: "×",
      target: atMost(overWorld, FULL_OVER_WORLD_TARGET, "×"),
    },
    {
      id: "hash_floor_over_world",
      label: "hash floor (JSON.stringify + sha256 of each step) ÷ world.step",
      value: medianRatio(rates.world.cpu, rates.hash.cpu),
      unit: "×",
    },
    {
      id: "least_full_over_world",
      label: "least full ÷ world.step a hashed trajectory allows (1 + the above)",
      value: 1 + medianRatio(rates.world.cpu, rates.hash.cpu),
      unit: "×",
    },
    {
      id: "world_over_bare",
      label: "world.step cost per step ÷ bare",
      value: medianRatio(rates.bare.cpu, rates.world.cpu),
      unit: "×",
    },
  ];
  return {
    name: "world-steps",
    title: "World steps/s: bare tool loop vs world.step vs full runner path",
    figures,
    notes: [
      `${steps} tool calls per episode (get_case, check_warranty, get_approval, create_replacement replayed by key, find_replacements, wait), then close_case; device-support approved-replacement d1.`,
      "bare = tool handlers on a start state, no validation/trace/agent; world = DeviceSupportWorld reset+step+verdict; full = runTrial with a scripted agent (clean-start check, wall-clock deadline, step records, trajectory hash, after-episode check); hash floor = each recorded step as plain JSON.stringify through sha256, the least a hash of every step costs.",
      "Each variant of each round runs in a fresh process (one event loop, one core), warmed up, then measured: rates per CPU-second of that process (wall-clock rate in brackets); median of interleaved rounds; ratios are medians of per-round ratios.",
    ],
    seconds: (performance.now() - t0) / 1000,
  };
}
