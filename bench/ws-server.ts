/**
 * WebSocket server load test (loopback only, bounded): steps per second through `proving serve`'s
 * `/ws` with one client and with many concurrent clients, against a baseline measured in the same
 * run (the same steps on an in-process environment, no network).
 *
 *   node --import tsx bench/ws-server.ts [--clients 100] [--steps 3000] [--steps-per-client 100] [--json]
 */
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type { TaskObservation } from "../src/core/contracts.ts";
import { startServer, WsEpisodeClient, worldTarget } from "../src/serve/index.ts";
import { deviceSupport } from "../src/worlds/index.ts";

export interface ThroughputFigure {
  clients: number;
  steps: number;
  seconds: number;
  stepsPerSecond: number;
}

export interface WsBenchResult {
  /** In-process `env.step` with the same actions: the ceiling the server is compared against. */
  baseline: ThroughputFigure;
  oneClient: ThroughputFigure;
  manyClients: ThroughputFigure;
  /** Server throughput as a fraction of the in-process baseline. */
  ratios: { oneClient: number; manyClients: number };
}

export interface WsBenchOptions {
  /** Steps for the single client (default 3000). */
  steps?: number;
  /** Concurrent clients (default 100). */
  clients?: number;
  /** Steps each of the many clients takes (default 100). */
  stepsPerClient?: number;
}

const FAMILY = "denied";

function figure(clients: number, steps: number, ms: number): ThroughputFigure {
  const seconds = ms / 1000;
  return { clients, steps, seconds, stepsPerSecond: steps / seconds };
}

async function baseline(steps: number): Promise<ThroughputFigure> {
  const env = deviceSupport.create();
  const task = deviceSupport.generateTask({ family: FAMILY, difficulty: 1, seed: 0 });
  const first = (await env.reset({ task, seed: 0 })) as TaskObservation;
  const caseId = String(first.context.case_id);
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) {
    await env.step({ tool: "get_approval", args: { case_id: caseId }, callId: `c${i}` });
  }
  return figure(1, steps, performance.now() - t0);
}

async function client(url: string, seed: number, steps: number): Promise<() => Promise<number>> {
  const ws = await WsEpisodeClient.connect(url);
  const first = await ws.reset({ family: FAMILY, difficulty: 1, seed });
  const caseId = String((first.observation as TaskObservation).context.case_id);
  return async () => {
    for (let i = 0; i < steps; i++) await ws.step({ tool: "get_approval", args: { case_id: caseId } });
    await ws.close();
    return steps;
  };
}

/** Runs the load test on a fresh loopback server and returns the figures. */
export async function benchWsServer(opts: WsBenchOptions = {}): Promise<WsBenchResult> {
  const steps = opts.steps ?? 3000;
  const clients = opts.clients ?? 100;
  const perClient = opts.stepsPerClient ?? 100;
  const server = await startServer({
    target: worldTarget(deviceSupport),
    host: "127.0.0.1",
    port: 0,
    maxSessions: clients + 8,
    maxSteps: Number.MAX_SAFE_INTEGER,
  });
  try {
    // warm up (JIT, sockets)
    await (await client(server.url, 999, 200))();
    await baseline(200);
    const base = await baseline(steps);

    const one = await client(server.url, 1, steps);
    let t0 = performance.now();
    await one();
    const oneClient = figure(1, steps, performance.now() - t0);

    const runs = await Promise.all(
      Array.from({ length: clients }, (_, i) => client(server.url, 100 + i, perClient)),
    );
    t0 = performance.now();
    const done = await Promise.all(runs.map((run) => run()));
    const manyClients = figure(
      clients,
      done.reduce((a, b) => a + b, 0),
      performance.now() - t0,
    );
    return {
      baseline: base,
      oneClient,
      manyClients,
      ratios: {
        oneClient: oneClient.stepsPerSecond / base.stepsPerSecond,
        manyClients: manyClients.stepsPerSecond / base.stepsPerSecond,
      },
    };
  } finally {
    await server.close();
  }
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const num = (name: string) => (flag(name) !== undefined ? Number(flag(name)) : undefined);
  const opts: WsBenchOptions = {};
  if (num("--clients") !== undefined) opts.clients = num("--clients");
  if (num("--steps") !== undefined) opts.steps = num("--steps");
  if (num("--steps-per-client") !== undefined) opts.stepsPerClient = num("--steps-per-client");
  const r = await benchWsServer(opts);
  if (process.argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  } else {
    const line = (label: string, f: ThroughputFigure, ratio?: number) =>
      `${label.padEnd(28)} ${f.stepsPerSecond.toFixed(0).padStart(8)} steps/s  (${f.steps} steps, ${f.clients} client${f.clients === 1 ? "" : "s"}, ${f.seconds.toFixed(2)} s)${ratio === undefined ? "" : `  ×${ratio.toFixed(3)} of baseline`}`;
    process.stdout.write(
      [
        "ws-server (loopback)",
        line("baseline: in-process step", r.baseline),
        line("WS, 1 client", r.oneClient, r.ratios.oneClient),
        line(`WS, ${r.manyClients.clients} clients`, r.manyClients, r.ratios.manyClients),
        "",
      ].join("\n"),
    );
  }
}
