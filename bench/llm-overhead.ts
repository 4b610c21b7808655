/**
 * Gym overhead per LLM step: N concurrent device-support episodes of an `openai:` agent against the
 * fake provider (in its own process, `proving fake-llm`, playing `cautious`) answering after L ms.
 *
 * Gym time is what a step costs besides waiting for the provider: runner, world, clean-start check,
 * prompt building, provider encode/decode, limiter. It is measured as CPU time, which other load
 * on the machine barely changes, minus the CPU of the HTTP exchange itself (a bare HTTP loop with a
 * request of the same size, same server, same concurrency, measured in the same run):
 * - gymShare = gym CPU per step / (provider latency + gym CPU per step): the share of a step's
 *   wall time the gym takes while the event loop is not saturated (eventLoopUtilization says so);
 * - cpuShare = all CPU per step (HTTP client included) / (latency + that): an upper bound;
 * - wallShare = 1 − HTTP time / trial wall time, as measured: only meaningful on an idle machine
 *   (the load average is printed beside it).
 * Run: node --import tsx bench/llm-overhead.ts [episodes=100] [latencyMs=200]
 */
import { type ChildProcess, spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createLlmAgent, defaultConfig, nodeFetch } from "../src/agents/llm/index.ts";
import type { TrialRecord } from "../src/core/contracts.ts";
import { defaultGym } from "../src/gym/index.ts";
import { parseExperiment } from "../src/runner/experiment.ts";
import { runExperiment } from "../src/runner/run.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface LlmOverheadOptions {
  episodes?: number;
  latencyMs?: number;
  /** Episodes run per concurrency slot in the measured run (default 2). */
  rounds?: number;
}

export interface LlmOverheadResult {
  episodes: number;
  latencyMs: number;
  trials: number;
  passed: number;
  steps: number;
  /** All CPU of this process per step (gym + HTTP client). */
  cpuPerStepMs: number;
  /** CPU per call of the bare HTTP loop. */
  httpCpuPerCallMs: number;
  gymCpuPerStepMs: number;
  /** Gym time per step as a share of a step's wall time (the headline; target < 1%). */
  gymShare: number;
  cpuShare: number;
  eventLoopUtilization: number;
  eventLoopDelayP99Ms: number;
  wallPerStepMs: number;
  httpPerStepMs: number;
  wallShare: number;
  baselineWallPerCallMs: number;
  loadAverage: number;
  cores: number;
}

async function startFakeProvider(latencyMs: number): Promise<{ baseURL: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(ROOT, "src/cli/main.ts"),
      "fake-llm",
      "--script",
      "policy:cautious",
      "--latency-ms",
      String(latencyMs),
      "--json",
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  const rl = createInterface({ input: child.stdout! });
  let text = "";
  for await (const line of rl) {
    text += line;
    if (line.startsWith("}")) break;
  }
  return { baseURL: (JSON.parse(text) as { baseURL: string }).baseURL, child };
}

/**
 * Raw POSTs in `concurrency` loops (a request the size of a mid-episode one, the agent's HTTP client):
 * wall and CPU per call.
 */
async function baseline(
  baseURL: string,
  concurrency: number,
  callsPerLoop: number,
): Promise<{ wallMs: number; cpuMs: number }> {
  const body = JSON.stringify({
    model: "baseline",
    messages: [
      { role: "system", content: "s".repeat(700) },
      { role: "user", content: `Support case C-00001: ${"x".repeat(900)}` },
      ...Array.from({ length: 4 }, () => ({ role: "user", content: "y".repeat(1000) })),
    ],
    tools: [],
  });
  let total = 0;
  let calls = 0;
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = 0; i < callsPerLoop; i++) {
        const t0 = performance.now();
        const res = await nodeFetch(`${baseURL}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        await res.text();
        total += performance.now() - t0;
        calls++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { wallMs: total / calls, cpuMs: (cpu.user + cpu.system) / 1000 / calls };
}

export async function measureLlmOverhead(options: LlmOverheadOptions = {}): Promise<LlmOverheadResult> {
  const episodes = options.episodes ?? 100;
  const latencyMs = options.latencyMs ?? 200;
  const rounds = options.rounds ?? 2;
  const { baseURL, child } = await startFakeProvider(latencyMs);
  try {
    let httpMs = 0;
    // request to response headers (a small reply arrives with them); reading it is the SDK's work
    const timedFetch: typeof fetch = async (input, init) => {
      const t0 = performance.now();
      const res = await nodeFetch(input, init);
      httpMs += performance.now() - t0;
      return res;
    };
    const config = { ...defaultConfig("openai", "fake-model", baseURL), apiKey: "bench" };
    config.limiter = { initial: episodes, max: episodes * 2 };
    const agent = createLlmAgent(config, { fetch: timedFetch });
    const registry = defaultGym().registry;
    const run = (trials: number, records?: TrialRecord[]) =>
      runExperiment(
        parseExperiment({
          worlds: ["device-support@1"],
          families: ["lost-reply"],
          difficulties: [1],
          trials,
          agents: ["bench"],
          budget: { maxSteps: 50, wallTimeoutMs: 600_000 },
        }),
        {
          registry,
          concurrency: episodes,
          agents: [{ ref: { id: "bench", kind: "llm", spec: "bench" }, forWorld: () => agent }],
          ...(records ? { onTrial: (r: TrialRecord) => void records.push(r) } : {}),
        },
      );
    await run(Math.min(episodes, 20)); // warm-up: JIT, sockets
    await baseline(baseURL, episodes, 1);
    const base = await baseline(baseURL, episodes, 3);

    httpMs = 0;
    const records: TrialRecord[] = [];
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    await run(episodes * rounds, records);
    const cpu = process.cpuUsage(cpu0);
    const elu = performance.eventLoopUtilization(elu0);
    loop.disable();

    const steps = records.reduce((n, r) => n + r.steps.length, 0);
    const wallMs = records.reduce((n, r) => n + r.stats.wallMs, 0);
    const cpuPerStepMs = (cpu.user + cpu.system) / 1000 / steps;
    const gymCpuPerStepMs = Math.max(0, cpuPerStepMs - base.cpuMs);
    const wallPerStepMs = wallMs / steps;
    const httpPerStepMs = httpMs / steps;
    return {
      episodes,
      latencyMs,
      trials: records.length,
      passed: records.filter((r) => r.outcome === "passed").length,
      steps,
      cpuPerStepMs,
      httpCpuPerCallMs: base.cpuMs,
      gymCpuPerStepMs,
      gymShare: gymCpuPerStepMs / (latencyMs + gymCpuPerStepMs),
      cpuShare: cpuPerStepMs / (latencyMs + cpuPerStepMs),
      eventLoopUtilization: elu.utilization,
      eventLoopDelayP99Ms: loop.percentile(99) / 1e6,
      wallPerStepMs,
      httpPerStepMs,
      wallShare: (wallPerStepMs - httpPerStepMs) / wallPerStepMs,
      baselineWallPerCallMs: base.wallMs,
      loadAverage: os.loadavg()[0],
      cores: os.availableParallelism(),
    };
  } finally {
    child.kill("SIGTERM");
  }
}

export function formatLlmOverhead(r: LlmOverheadResult): string {
  const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
  const ms = (x: number) => `${x.toFixed(2)} ms`;
  return [
    `llm-overhead: ${r.episodes} concurrent episodes, fake provider at ${r.latencyMs} ms, ${r.trials} trials (${r.passed} passed), ${r.steps} steps`,
    `  gym time per step / wall time per step: ${pct(r.gymShare)}   (target < 1%)`,
    `    gym CPU per step ${ms(r.gymCpuPerStepMs)} = process CPU ${ms(r.cpuPerStepMs)} - bare HTTP call ${ms(r.httpCpuPerCallMs)}`,
    `    event-loop utilization ${pct(r.eventLoopUtilization)}, delay p99 ${ms(r.eventLoopDelayP99Ms)}`,
    `  upper bound, HTTP client counted as gym: ${pct(r.cpuShare)}`,
    `  as measured on the wall clock (load average ${r.loadAverage.toFixed(1)} on ${r.cores} cores): ` +
      `step ${ms(r.wallPerStepMs)} = HTTP ${ms(r.httpPerStepMs)} + rest ${ms(r.wallPerStepMs - r.httpPerStepMs)} ` +
      `(${pct(r.wallShare)}); bare HTTP call ${ms(r.baselineWallPerCallMs)}`,
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const episodes = Number(process.argv[2] ?? 100);
  const latencyMs = Number(process.argv[3] ?? 200);
  const result = await measureLlmOverhead({ episodes, latencyMs });
  process.stdout.write(`${formatLlmOverhead(result)}\n`);
}
