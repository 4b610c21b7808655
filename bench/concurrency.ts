import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { atMost, type BenchOptions, type BenchReport, type Figure } from "./figures.ts";
import { median, spreadOf } from "./measure.ts";

const CHILD = fileURLToPath(new URL("./concurrency-child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("..", import.meta.url));

export const OPEN_EPISODES = 10_000;
export const MEMORY_TARGET_KB = 50;
export const DEGRADATION_TARGET = 2;

/** Runs the child in a fresh process with `--expose-gc`; returns its JSON line. */
function child<T>(args: string[], log?: (line: string) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--expose-gc", "--import", "tsx", CHILD, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => {
      out += d;
    });
    p.stderr.on("data", (d) => {
      err += d;
      for (const line of String(d).split("\n")) if (line.trim()) log?.(line);
    });
    p.on("error", reject);
    p.on("close", (code) => {
      if (code !== 0)
        return reject(new Error(`concurrency child ${args[0]} exited ${code}: ${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").pop() ?? "") as T);
      } catch (e) {
        reject(new Error(`concurrency child ${args[0]} printed no JSON: ${String(e)}\n${out.slice(-500)}`));
      }
    });
  });
}

interface MemoryResult {
  episodes: number;
  openSeconds: number;
  perTaskBytes: number;
  perWorldBytes: number;
  perEpisodeBytes: number;
  perEpisodeExternalBytes: number;
  perEpisodeRssBytes: number;
  heapUsedOpenMb: number;
}

interface ThroughputResult {
  episodes: number;
  stepsPerEpisode: number;
  sequentialEpisodes: number;
  one: { cpu: number[]; wall: number[] };
  many: { cpu: number[]; wall: number[] };
  ratioCpu: number;
  ratioWall: number;
}

export async function benchConcurrency(opts: BenchOptions = {}): Promise<BenchReport> {
  const t0 = performance.now();
  const n = opts.quick ? 2000 : OPEN_EPISODES;
  const mem = await child<MemoryResult>(["memory", String(n)], opts.log);
  const tp = await child<ThroughputResult>(
    ["throughput", String(n), "20", String(opts.quick ? 1 : 2)],
    opts.log,
  );
  const perEpisodeKb = mem.perEpisodeBytes / 1024;
  const one = median(tp.one.cpu);
  const many = median(tp.many.cpu);
  const figures: Figure[] = [
    {
      id: "open_episodes",
      label: "open episodes held at once",
      value: mem.episodes,
      unit: "episodes",
    },
    {
      id: "memory_per_idle_episode_kb",
      label: "heap per idle open episode (runTrial)",
      value: perEpisodeKb,
      unit: "KB",
      target: atMost(perEpisodeKb, MEMORY_TARGET_KB, "KB"),
    },
    {
      id: "memory_per_world_kb",
      label: "  of which: world state after reset",
      value: mem.perWorldBytes / 1024,
      unit: "KB",
    },
    {
      id: "memory_per_task_kb",
      label: "  of which: the generated task",
      value: mem.perTaskBytes / 1024,
      unit: "KB",
    },
    {
      id: "rss_per_idle_episode_kb",
      label: "RSS per idle open episode",
      value: mem.perEpisodeRssBytes / 1024,
      unit: "KB",
    },
    {
      id: "steps_per_s_1_open",
      label: "steps/s, 1 episode in flight (baseline)",
      value: one,
      unit: "steps/s",
      spread: spreadOf(tp.one.cpu),
      wall: median(tp.one.wall),
    },
    {
      id: "steps_per_s_many_open",
      label: `steps/s, ${tp.episodes.toLocaleString("en-US")} episodes in flight`,
      value: many,
      unit: "steps/s",
      spread: spreadOf(tp.many.cpu),
      wall: median(tp.many.wall),
      baseline: { label: "1 in flight", value: one },
      ratio: many / one,
    },
    {
      id: "degradation_1_to_many",
      label: `slowdown per step, 1 → ${tp.episodes.toLocaleString("en-US")} in flight`,
      value: tp.ratioCpu,
      unit: "×",
      target: atMost(tp.ratioCpu, DEGRADATION_TARGET, "×"),
    },
    {
      id: "degradation_1_to_many_wall",
      label: "  same, wall-clock",
      value: tp.ratioWall,
      unit: "×",
    },
  ];
  return {
    name: "concurrency",
    title: `Concurrency and memory: ${n.toLocaleString("en-US")} open episodes in one process`,
    figures,
    notes: [
      `Memory: a fresh process with --expose-gc opens ${mem.episodes.toLocaleString("en-US")} runTrial episodes (device-support d1, a task per episode) and pauses each inside act() after 4 tool calls; heap after full GC, minus the heap before, divided by the count. They opened in ${mem.openSeconds.toFixed(1)} s (${(mem.heapUsedOpenMb).toFixed(0)} MB heap in use), then all ran to a passing verdict.`,
      `Throughput: the same episodes (${tp.stepsPerEpisode} steps each) run one at a time (${tp.sequentialEpisodes} of them) and all ${tp.episodes.toLocaleString("en-US")} at once, in another fresh process; rates per CPU-second (wall in brackets). Wall-clock at 1 in flight includes each trial's after-episode timer turn (idle time).`,
      "One process, one core: the event loop interleaves the episodes; the second core is left to the OS and the store.",
    ],
    seconds: (performance.now() - t0) / 1000,
  };
}
