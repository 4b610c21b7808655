import { fileURLToPath } from "node:url";
import type { Agent, AgentSession, Observation, TrialSpec } from "../src/core/contracts.ts";
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
    world: s.world,
    instruction: task.instruction,
    tools: env.spec.tools,
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

// ------------------------------------------------------------ isolated module agents (issue 17)

/** The module agent both variants play: the README's example policy (plays device-support well). */
const MODULE_POLICY = fileURLToPath(new URL("../examples/policy.mjs", import.meta.url));
/** Episodes per unit of work (isolated batches are kept small: each episode crosses to the agent's process). */
const MODULE_BATCH = 4;
let moduleAgents: { inProcess: Agent; isolated: Agent } | undefined;

async function moduleAgent(inProcess: boolean): Promise<Agent> {
  if (!moduleAgents) {
    const { loadModuleAgent } = await import("../src/agents/resolve.ts");
    const cwd = fileURLToPath(new URL("..", import.meta.url));
    const [a, b] = await Promise.all([
      loadModuleAgent(MODULE_POLICY, cwd, { inProcess: true }),
      loadModuleAgent(MODULE_POLICY, cwd),
    ]);
    moduleAgents = { inProcess: a.forWorld(WORLD), isolated: b.forWorld(WORLD) };
  }
  return inProcess ? moduleAgents.inProcess : moduleAgents.isolated;
}

let moduleSteps = 0;

async function moduleTrials(inProcess: boolean): Promise<number> {
  const a = await moduleAgent(inProcess);
  for (let k = 0; k < MODULE_BATCH; k++) {
    const s = { ...spec(next++), agent: { id: "module", kind: "module" as const, spec: MODULE_POLICY } };
    const record = await runTrial(s, { world: WORLD, agent: a });
    if (record.outcome !== "passed")
      throw new Error(`bench: module trial ${record.outcome}: ${record.reason}`);
    moduleSteps += record.stats.steps;
  }
  return MODULE_BATCH;
}

export const workModuleInProcess = () => moduleTrials(true);
export const workModuleIsolated = () => moduleTrials(false);

/** One agent step alone (no world, no runner): act() on an open session, in process or isolated. */
const ACTS = 200;
const STEP_AGENT = fileURLToPath(new URL("../test/agents/fixtures/hostile/good.mjs", import.meta.url));
const sessions: Partial<Record<"inProcess" | "isolated", AgentSession>> = {};
const TASK_OBSERVATION = {
  kind: "task",
  instruction: "bench",
  context: { case_id: "C-01234" },
  tools: [],
} as unknown as Observation;
const RESULT_OBSERVATION = {
  kind: "tool_result",
  tool: "get_case",
  callId: "call-0",
  result: { ok: true, case: { id: "C-01234", status: "open", notes: ["a", "b", "c"] } },
  now: 1,
} as unknown as Observation;

async function acts(mode: "inProcess" | "isolated"): Promise<number> {
  let session = sessions[mode];
  if (!session) {
    const { loadModuleAgent } = await import("../src/agents/resolve.ts");
    const resolved = await loadModuleAgent(STEP_AGENT, fileURLToPath(new URL("..", import.meta.url)), {
      inProcess: mode === "inProcess",
    });
    session = await resolved.forWorld(WORLD).start({
      episodeId: "ep-bench",
      world: WORLD.id,
      instruction: "bench",
      tools: [],
      samplingSeed: 1,
    });
    await session.act(TASK_OBSERVATION);
    sessions[mode] = session;
  }
  for (let k = 0; k < ACTS; k++) await session.act(RESULT_OBSERVATION);
  return ACTS;
}

export const workActsInProcess = () => acts("inProcess");
export const workActsIsolated = () => acts("isolated");

/**
 * The per-step overhead of running a module agent isolated (a worker thread per episode, copies in,
 * JSON out) against running the same module on the runner's thread, through `runTrial` both ways.
 */
export async function benchModuleAgent(opts: BenchOptions = {}): Promise<BenchReport> {
  const t0 = performance.now();
  for (let i = 0; i < CELLS.length; i++) await moduleTrials(true);
  const stepsPerEpisode = moduleSteps / (CELLS.length * MODULE_BATCH);
  const rates = await isolated(
    fileURLToPath(import.meta.url),
    {
      inProcess: "workModuleInProcess",
      isolated: "workModuleIsolated",
      actsInProcess: "workActsInProcess",
      actsIsolated: "workActsIsolated",
    },
    {
      rounds: opts.quick ? 3 : 7,
      minMs: opts.quick ? 300 : 1000,
      warmupMs: opts.quick ? 500 : 2000,
      log: opts.log,
    },
  );
  const inProc = median(rates.inProcess.cpu);
  const iso = median(rates.isolated.cpu);
  const baseline = { label: "in-process module agent", value: inProc };
  const overheadMs = median(rates.isolated.cpu.map((r, i) => 1000 / r - 1000 / rates.inProcess.cpu[i]));
  const overheadWallMs = median(rates.isolated.wall.map((r, i) => 1000 / r - 1000 / rates.inProcess.wall[i]));
  return {
    name: "module-agent",
    title: "Module agents: isolated (a worker thread per episode) vs in process, through runTrial",
    figures: [
      {
        id: "module_in_process_episodes_per_s",
        label: "module agent in process (baseline)",
        value: inProc,
        unit: "episodes/s",
        spread: spreadOf(rates.inProcess.cpu),
        wall: median(rates.inProcess.wall),
      },
      against(
        {
          id: "module_isolated_episodes_per_s",
          label: "module agent isolated",
          value: iso,
          unit: "episodes/s",
          spread: spreadOf(rates.isolated.cpu),
          wall: median(rates.isolated.wall),
        },
        baseline,
      ),
      {
        id: "module_isolated_over_in_process",
        label: "isolated cost per episode ÷ in process",
        value: medianRatio(rates.inProcess.cpu, rates.isolated.cpu),
        unit: "×",
      },
      {
        id: "module_isolated_overhead_ms_per_episode",
        label:
          "isolation CPU per episode in the runner (IPC, copies; the agent's own process is not counted)",
        value: overheadMs,
        unit: "ms",
      },
      {
        id: "module_isolated_overhead_ms_per_step",
        label: "isolation CPU per agent step (the above ÷ steps)",
        value: overheadMs / stepsPerEpisode,
        unit: "ms",
      },
      {
        id: "module_isolated_overhead_wall_ms_per_episode",
        label: "isolation wall-clock per episode",
        value: overheadWallMs,
        unit: "ms",
      },
      {
        id: "module_act_in_process_per_s",
        label: "act() alone, in process (baseline of the next)",
        value: median(rates.actsInProcess.cpu),
        unit: "steps/s",
        spread: spreadOf(rates.actsInProcess.cpu),
        wall: median(rates.actsInProcess.wall),
      },
      against(
        {
          id: "module_act_isolated_per_s",
          label: "act() alone, isolated (the agent's process: JSON in, JSON out)",
          value: median(rates.actsIsolated.cpu),
          unit: "steps/s",
          spread: spreadOf(rates.actsIsolated.cpu),
          wall: median(rates.actsIsolated.wall),
        },
        { label: "act() in process", value: median(rates.actsInProcess.cpu) },
      ),
      {
        id: "module_act_isolated_overhead_us",
        label: "isolation CPU per step in the runner, process already started",
        value: median(rates.actsIsolated.cpu.map((r, i) => 1e6 / r - 1e6 / rates.actsInProcess.cpu[i])),
        unit: "µs",
      },
      {
        id: "module_steps_per_episode",
        label: "agent steps per episode (mean)",
        value: stepsPerEpisode,
        unit: "steps",
      },
    ],
    notes: [
      `examples/policy.mjs on every device-support family at difficulties ${DIFFICULTIES.join(", ")}, one trial at a time through runTrial, ${MODULE_BATCH} episodes per unit of work; each variant in a process of its own, rounds interleaved. CPU counts every thread of the process (the agent's worker included).`,
      "isolated = what `proving run` does with a module agent: one sandboxed process per agent and run (the module imported once; heap and data capped), the episode and each observation sent as JSON over IPC, each action returned as JSON text. The CPU figures count the runner's process only (the agent's process is another process); the throughput ratio is the whole cost.",
      `"act() alone" isolates the per-step part: ${ACTS} act() calls on a session already started (test/agents/fixtures/hostile/good.mjs; a tool_result observation in, an action out), no world or runner.`,
    ],
    seconds: (performance.now() - t0) / 1000,
  };
}
