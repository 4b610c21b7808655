/**
 * The measuring side of `bench/concurrency.ts`, run in its own process with `--expose-gc` so heap
 * figures are taken after full collections and nothing else lives in the heap:
 *   memory N          N open, idle episodes (runTrial paused inside act() after 4 steps)
 *   throughput N S R  steps/s with 1 episode in flight vs N in flight, S tool calls each, R rounds
 * Prints one JSON line on stdout; progress goes to stderr.
 */
import type { TrialRecord } from "../src/core/contracts.ts";
import { runTrial } from "../src/runner/trial.ts";
import { DeviceSupportWorld } from "../src/worlds/device-support/world.ts";
import { benchSpec, benchTask, mixAgent, WORLD } from "./fixtures.ts";
import { collect, median } from "./measure.ts";

const log = (s: string) => process.stderr.write(`${s}\n`);

function heap(): { heapUsed: number; external: number; rss: number } {
  collect();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, external: m.external + m.arrayBuffers, rss: m.rss };
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1e6;
}

function check(records: TrialRecord[]): void {
  const bad = records.filter((r) => r.outcome !== "passed");
  if (bad.length) throw new Error(`${bad.length} trials did not pass: ${bad[0].outcome} ${bad[0].reason}`);
}

let experiment = 0;

/** Runs `n` episodes of `steps` tool calls, `inFlight` at a time; returns steps and CPU/wall seconds. */
async function episodes(n: number, steps: number, inFlight: number) {
  const id = `bench-conc-${experiment++}`;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  let total = 0;
  const records: TrialRecord[] = [];
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const r = await runTrial(benchSpec(i, steps + 1, 1 + i, id), {
        world: WORLD,
        agent: mixAgent({ steps }),
      });
      total += r.stats.steps;
      if (r.outcome !== "passed") records.push(r);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  check(records);
  return { steps: total, cpu: cpuSeconds(c0), wall: (performance.now() - t0) / 1000 };
}

async function memory(n: number) {
  // warm up: load every module and JIT the paths once
  await episodes(50, 8, 10);
  const base = heap();
  const tasks = Array.from({ length: n }, (_, i) => benchTask(1 + i));
  const withTasks = heap();
  const worlds: DeviceSupportWorld[] = [];
  for (let i = 0; i < n; i++) {
    const w = new DeviceSupportWorld();
    await w.reset({ task: tasks[i], seed: 1 + i, episodeId: `w${i}` });
    worlds.push(w);
  }
  const withWorlds = heap();
  worlds.length = 0;
  tasks.length = 0;
  const before = heap();

  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let paused = 0;
  let allPaused!: () => void;
  const ready = new Promise<void>((resolve) => {
    allPaused = resolve;
  });
  const onPause = () => {
    if (++paused === n) allPaused();
  };
  const t0 = performance.now();
  const running = Array.from({ length: n }, (_, i) =>
    runTrial(benchSpec(i, 21, 1 + i, "bench-mem"), {
      world: WORLD,
      agent: mixAgent({ steps: 20, pauseAfter: 4, gate, onPause }),
    }),
  );
  await ready;
  const openSeconds = (performance.now() - t0) / 1000;
  const open = heap();
  log(`  ${n} episodes open in ${openSeconds.toFixed(2)} s`);
  release();
  check(await Promise.all(running));
  return {
    episodes: n,
    openSeconds,
    perTaskBytes: (withTasks.heapUsed - base.heapUsed) / n,
    perWorldBytes: (withWorlds.heapUsed - withTasks.heapUsed) / n,
    perEpisodeBytes: (open.heapUsed - before.heapUsed) / n,
    perEpisodeExternalBytes: (open.external - before.external) / n,
    perEpisodeRssBytes: (open.rss - before.rss) / n,
    heapUsedOpenMb: open.heapUsed / 2 ** 20,
  };
}

async function throughput(n: number, steps: number, rounds: number) {
  await episodes(200, steps, 20);
  const one: Array<{ cpu: number; wall: number }> = [];
  const many: Array<{ cpu: number; wall: number }> = [];
  const sequential = Math.max(100, Math.round(n / 10));
  for (let r = 0; r < rounds; r++) {
    const a = await episodes(sequential, steps, 1);
    one.push({ cpu: a.steps / a.cpu, wall: a.steps / a.wall });
    const b = await episodes(n, steps, n);
    many.push({ cpu: b.steps / b.cpu, wall: b.steps / b.wall });
    log(
      `  round ${r + 1}/${rounds}: 1 in flight ${Math.round(one[r].cpu)} steps/cpu-s (${Math.round(one[r].wall)}/s); ${n} in flight ${Math.round(many[r].cpu)} steps/cpu-s (${Math.round(many[r].wall)}/s)`,
    );
  }
  return {
    episodes: n,
    stepsPerEpisode: steps + 1,
    sequentialEpisodes: sequential,
    one: { cpu: one.map((x) => x.cpu), wall: one.map((x) => x.wall) },
    many: { cpu: many.map((x) => x.cpu), wall: many.map((x) => x.wall) },
    ratioCpu: median(one.map((x, i) => x.cpu / many[i].cpu)),
    ratioWall: median(one.map((x, i) => x.wall / many[i].wall)),
  };
}

async function main(): Promise<void> {
  const [mode, ...rest] = process.argv.slice(2);
  const nums = rest.map(Number);
  if (!collect()) throw new Error("run with --expose-gc");
  let out: unknown;
  if (mode === "memory") out = await memory(nums[0] ?? 10_000);
  else if (mode === "throughput") out = await throughput(nums[0] ?? 10_000, nums[1] ?? 20, nums[2] ?? 3);
  else throw new Error(`unknown mode ${mode}`);
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
