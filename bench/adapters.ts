/**
 * Turns the results of benchmarks written elsewhere (the WebSocket server's, the LLM overhead's) into
 * figures with ratios and targets. They are read loosely: a field that is missing or renamed leaves
 * its figure out rather than failing the run.
 */
import os from "node:os";
import type { BenchOptions, BenchReport, Figure } from "./figures.ts";
import { median } from "./measure.ts";

type Mod = Record<string, unknown>;
type Fn = (opts: Record<string, unknown>) => Promise<unknown>;

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {};

function pick(mod: Mod, ...names: string[]): Fn | undefined {
  for (const n of names) if (typeof mod[n] === "function") return mod[n] as Fn;
  return undefined;
}

export async function adaptWsServer(mod: Mod, opts: BenchOptions): Promise<BenchReport | undefined> {
  const fn = pick(mod, "benchWsServer", "default");
  if (!fn) return undefined;
  const t0 = performance.now();
  const r = obj(await fn(opts.quick ? { steps: 1000, clients: 100, stepsPerClient: 30, rounds: 9 } : {}));
  const base = obj(r.baseline);
  const one = obj(r.oneClient);
  const many = obj(r.manyClients);
  const baseRate = num(base.stepsPerSecond);
  const figures: Figure[] = [];
  const baseline = baseRate !== undefined ? { label: "in-process", value: baseRate } : undefined;
  if (baseRate !== undefined)
    figures.push({
      id: "ws_baseline_steps_per_s",
      label: "in-process env.step (baseline)",
      value: baseRate,
      unit: "steps/s",
    });
  for (const [id, f, label] of [
    ["ws_one_client_steps_per_s", one, "WebSocket, 1 client"],
    ["ws_many_clients_steps_per_s", many, `WebSocket, ${num(many.clients) ?? "many"} clients`],
  ] as const) {
    const v = num(f.stepsPerSecond);
    if (v === undefined) continue;
    figures.push({
      id,
      label,
      value: v,
      unit: "steps/s",
      ...(baseline ? { baseline, ratio: v / baseline.value } : {}),
    });
  }
  // The target: proving serve at ≥ 0.6× the bare echo server, with the same client, by the
  // median of the per-round ratios (each serve round against the echo round beside it).
  const loads: number[] = [];
  for (const [key, idPart, setup] of [
    ["vsEchoProcesses", "_processes", "each server in its own process"],
    ["vsEcho", "", "servers and client in one process"],
  ] as const) {
    const c = obj(r[key]);
    const echoRate = num(obj(c.echo).stepsPerSecond);
    const serveRate = num(obj(c.serve).stepsPerSecond);
    if (echoRate === undefined || serveRate === undefined) continue;
    if (Array.isArray(c.loads)) for (const l of c.loads) if (num(l) !== undefined) loads.push(l as number);
    figures.push({
      id: `ws_echo_limit${idPart}_steps_per_s`,
      label: `bare ws echo server, raw ping-pong client (the limit; ${setup})`,
      value: echoRate,
      unit: "steps/s",
    });
    figures.push({
      id: `ws_serve_vs_echo${idPart}_steps_per_s`,
      label: `proving serve, the same raw ping-pong client (${setup})`,
      value: serveRate,
      unit: "steps/s",
      baseline: { label: "bare ws echo (ratio of medians)", value: echoRate },
      ratio: serveRate / echoRate,
    });
    const roundRatios = Array.isArray(c.roundRatios) ? c.roundRatios.map(num) : [];
    if (roundRatios.length && roundRatios.every((x) => x !== undefined)) {
      const xs = roundRatios as number[];
      const m = median(xs);
      figures.push({
        id: `ws_serve_vs_echo${idPart}_round_ratio`,
        label: `proving serve ÷ echo, median of ${xs.length} per-round ratios (${setup}; min–max)`,
        value: m,
        unit: "×",
        spread: [Math.min(...xs), Math.max(...xs)],
        target: { text: "≥ 0.6× echo", met: m >= 0.6 },
      });
    }
    const cpu = obj(c.cpu);
    const serveUs = num(cpu.serveUsPerStep);
    const echoUs = num(cpu.echoUsPerStep);
    if (serveUs !== undefined && echoUs !== undefined && echoUs > 0)
      figures.push({
        id: `ws_serve_cpu_per_step${idPart}_us`,
        label: `server CPU per round trip, proving serve (${setup}; all rounds)`,
        value: serveUs,
        unit: "µs",
        baseline: { label: `bare ws echo (${echoUs.toFixed(1)} µs)`, value: echoUs },
        ratio: serveUs / echoUs,
      });
  }
  if (loads.length)
    figures.push({
      id: "ws_load_average",
      label: `load average (1 min) during the echo comparison: median (min–max ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}, ${os.availableParallelism()} cores)`,
      value: median(loads),
      unit: "",
      spread: [Math.min(...loads), Math.max(...loads)],
    });
  return {
    name: "ws-server",
    title: "WebSocket server (/ws) steps/s, one client and many, against in-process stepping",
    figures,
    notes: [
      "From bench/ws-server.ts (loopback, wall-clock); ratios against the in-process baseline of the same run.",
      "Against the bare ws echo server: the same raw ping-pong client and step message, alternating rounds; the target is held on the median of the per-round ratios (each serve round ÷ the echo round beside it), the ratio of the medians is shown beside it; once with each server in its own process (proving serve started by its CLI) and once with everything in this process.",
    ],
    seconds: (performance.now() - t0) / 1000,
  };
}

export async function adaptLlmOverhead(mod: Mod, opts: BenchOptions): Promise<BenchReport | undefined> {
  const fn = pick(mod, "measureLlmOverhead", "benchLlmOverhead", "default");
  if (!fn) return undefined;
  const t0 = performance.now();
  const r = obj(await fn(opts.quick ? { episodes: 100, rounds: 1 } : {}));
  const figures: Figure[] = [];
  const pct = (v: number | undefined) => (v === undefined ? undefined : v * 100);
  const gymShare = pct(num(r.gymShare));
  if (gymShare !== undefined) {
    figures.push({
      id: "llm_gym_share_pct",
      label: "gym time per step ÷ wall time per step",
      value: gymShare,
      unit: "%",
      target: { text: "< 1 %", met: gymShare < 1 },
    });
  }
  const cpuShare = pct(num(r.cpuShare));
  if (cpuShare !== undefined)
    figures.push({
      id: "llm_cpu_share_pct",
      label: "  upper bound (HTTP client counted as gym)",
      value: cpuShare,
      unit: "%",
    });
  const gymCpu = num(r.gymCpuPerStepMs);
  const httpCpu = num(r.httpCpuPerCallMs);
  if (gymCpu !== undefined) {
    figures.push({
      id: "llm_gym_cpu_per_step_ms",
      label: "gym CPU per step",
      value: gymCpu,
      unit: "ms",
      ...(httpCpu !== undefined && httpCpu > 0
        ? { baseline: { label: "bare HTTP call CPU", value: httpCpu }, ratio: gymCpu / httpCpu }
        : {}),
    });
  }
  const wallShare = pct(num(r.wallShare));
  if (wallShare !== undefined)
    figures.push({
      id: "llm_wall_share_pct",
      label: "  wall-clock: non-HTTP share of a step",
      value: wallShare,
      unit: "%",
    });
  const elu = pct(num(r.eventLoopUtilization));
  if (elu !== undefined)
    figures.push({
      id: "llm_event_loop_utilization_pct",
      label: "event-loop utilization",
      value: elu,
      unit: "%",
    });
  return {
    name: "llm-overhead",
    title: `LLM overhead: ${num(r.episodes) ?? "?"} concurrent episodes against a fake provider at ${num(r.latencyMs) ?? "?"} ms`,
    figures,
    notes: [
      `From bench/llm-overhead.ts: ${num(r.trials) ?? "?"} trials (${num(r.passed) ?? "?"} passed), ${num(r.steps) ?? "?"} steps; the provider runs in its own process.`,
    ],
    seconds: (performance.now() - t0) / 1000,
  };
}
