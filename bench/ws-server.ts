/**
 * WebSocket server load test (loopback only, bounded): steps per second through `proving serve`'s
 * `/ws` with one client and with many concurrent clients, against a baseline measured in the same
 * run (the same steps on an in-process environment, no network).
 *
 * The limit (issue 18): one bare `ws` echo server, played by the same ping-pong client (a raw `ws`
 * socket that sends one step message and waits for one reply) as `proving serve`; the serve figure is
 * printed as a ratio to it, and held to ≥ 0.6× by the median of the per-round ratios (each serve round
 * ÷ the echo round beside it). Rounds alternate between the two servers, so load from other processes
 * falls on both alike; the load average before each round is kept with the figures. It runs twice: with each server in a process of
 * its own (`proving serve` started by its CLI, as a user runs it, and as the issue measured it) and
 * with both servers and the client in this one process, where every microsecond of the server's
 * JavaScript counts against it (no scheduler wake-up between processes to hide it).
 *
 *   node --import tsx bench/ws-server.ts [--clients 100] [--steps 3000] [--steps-per-client 100]
 *     [--rounds 15] [--json]
 */
import type { AddressInfo } from "node:net";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import WebSocket, { WebSocketServer } from "ws";
import type { TaskObservation } from "../src/core/contracts.ts";
import { startServer, WsEpisodeClient, worldTarget } from "../src/serve/index.ts";
import { deviceSupport } from "../src/worlds/index.ts";
import { median } from "./measure.ts";
import { cpuSecondsOf, spawnEchoServer, spawnProvingServe } from "./spawn-server.ts";

export interface ThroughputFigure {
  clients: number;
  steps: number;
  seconds: number;
  stepsPerSecond: number;
}

/** The same ping-pong client against a bare `ws` echo server and against `proving serve`. */
export interface EchoComparison {
  /** Round trips per round. */
  steps: number;
  rounds: number;
  /** Median round: bare `ws` echo server (the limit). */
  echo: ThroughputFigure;
  /** Median round: `proving serve` answering real steps. */
  serve: ThroughputFigure;
  /** serve ÷ echo steps/s (the issue's target: ≥ 0.6). */
  ratio: number;
  /** serve ÷ echo of each round and the echo round next to it; their median is the figure held to the target. */
  roundRatios: number[];
  /** 1-minute load average before each round (the machine is shared). */
  loads: number[];
  /**
   * With the servers in processes of their own: each server's CPU time per round trip over all rounds
   * (µs; from /proc, Linux only), and serve ÷ echo. Steadier than the rates under load: it does not
   * count the time a process waited for a core.
   */
  cpu?: { echoUsPerStep: number; serveUsPerStep: number; ratio: number };
}

export interface WsBenchResult {
  /** In-process `env.step` with the same actions: the ceiling the server is compared against. */
  baseline: ThroughputFigure;
  oneClient: ThroughputFigure;
  manyClients: ThroughputFigure;
  /** Server throughput as a fraction of the in-process baseline. */
  ratios: { oneClient: number; manyClients: number };
  /** The same raw ping-pong client against a bare echo server and against `proving serve`, all in this process. */
  vsEcho: EchoComparison;
  /**
   * The same, with each server in a process of its own (`proving serve` started by its CLI, as a user
   * runs it) and the client in this one: the setup of the issue's own figures.
   */
  vsEchoProcesses: EchoComparison;
}

export interface WsBenchOptions {
  /** Steps for the single client (default 3000). */
  steps?: number;
  /** Concurrent clients (default 100). */
  clients?: number;
  /** Steps each of the many clients takes (default 100). */
  stepsPerClient?: number;
  /** Alternating echo / serve rounds of `steps` round trips each (default 15). */
  rounds?: number;
}

const FAMILY = "denied";
/**
 * Rounds of the echo comparison: single rounds stray far on a shared machine (0.2–1.1× at load ~4), so
 * the median of the per-round ratios needs many of them; a round is ~0.2 s.
 */
const ROUNDS = 15;

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

/** A bare `ws` server that sends every message back: the most a WS server can do for this client. */
async function startEchoServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  wss.on("connection", (ws) => ws.on("message", (data, isBinary) => ws.send(data, { binary: isBinary })));
  const { port } = wss.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  };
}

/** The ping-pong client: one raw socket, one text message out, one reply in, in turn. */
class PingPong {
  private waiting: ((data: string) => void) | undefined;
  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const w = this.waiting;
      this.waiting = undefined;
      w?.(String(data));
    });
  }
  static open(url: string): Promise<PingPong> {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(new PingPong(ws)));
      ws.once("error", reject);
    });
  }
  send(text: string): Promise<string> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.ws.send(text);
    });
  }
  async run(text: string, steps: number): Promise<number> {
    const t0 = performance.now();
    for (let i = 0; i < steps; i++) await this.send(text);
    return performance.now() - t0;
  }
  close(): void {
    this.ws.close();
  }
}

/** The same client and the same step message against a bare echo server and against `proving serve` (both `ws://` URLs). */
async function compareWithEcho(
  serveWsUrl: string,
  echoWsUrl: string,
  steps: number,
  rounds: number,
  pids?: { serve: number; echo: number },
): Promise<EchoComparison> {
  const serve = await PingPong.open(serveWsUrl);
  const echo = await PingPong.open(echoWsUrl);
  try {
    const first = JSON.parse(
      await serve.send(JSON.stringify({ type: "reset", data: { family: FAMILY, difficulty: 1, seed: 3 } })),
    ) as { data: { observation: TaskObservation } };
    const caseId = String(first.data.observation.context.case_id);
    const step = JSON.stringify({ type: "step", data: { tool: "get_approval", args: { case_id: caseId } } });
    // warm up both (JIT, sockets)
    await echo.run(step, 500);
    await serve.run(step, 500);
    const echoMs: number[] = [];
    const serveMs: number[] = [];
    const loads: number[] = [];
    const cpuOf = (pid: number | undefined) => (pid === undefined ? undefined : cpuSecondsOf(pid));
    const cpu0 = { serve: cpuOf(pids?.serve), echo: cpuOf(pids?.echo) };
    // Which server goes first alternates too, so neither always follows the other.
    for (let r = 0; r < rounds; r++) {
      loads.push(os.loadavg()[0]);
      if (r % 2 === 0) echoMs.push(await echo.run(step, steps));
      serveMs.push(await serve.run(step, steps));
      if (r % 2 === 1) echoMs.push(await echo.run(step, steps));
    }
    const cpu1 = { serve: cpuOf(pids?.serve), echo: cpuOf(pids?.echo) };
    let cpu: EchoComparison["cpu"];
    if (
      cpu0.serve !== undefined &&
      cpu0.echo !== undefined &&
      cpu1.serve !== undefined &&
      cpu1.echo !== undefined
    ) {
      // The ping-pong client's warm-up steps are not counted: both totals cover rounds × steps.
      const serveUs = ((cpu1.serve - cpu0.serve) / (rounds * steps)) * 1e6;
      const echoUs = ((cpu1.echo - cpu0.echo) / (rounds * steps)) * 1e6;
      if (echoUs > 0) cpu = { echoUsPerStep: echoUs, serveUsPerStep: serveUs, ratio: serveUs / echoUs };
    }
    const e = figure(1, steps, median(echoMs));
    const s = figure(1, steps, median(serveMs));
    return {
      steps,
      rounds,
      echo: e,
      serve: s,
      ratio: s.stepsPerSecond / e.stepsPerSecond,
      roundRatios: serveMs.map((ms, i) => echoMs[i] / ms),
      loads,
      ...(cpu ? { cpu } : {}),
    };
  } finally {
    echo.close();
    serve.close();
  }
}

/** Both servers in this process, with the client. */
async function compareInProcess(serveUrl: string, steps: number, rounds: number): Promise<EchoComparison> {
  const echoServer = await startEchoServer();
  try {
    return await compareWithEcho(`${serveUrl.replace(/^http/, "ws")}/ws`, echoServer.url, steps, rounds);
  } finally {
    await echoServer.close();
  }
}

/** Each server in its own process: `proving serve` through its CLI, the echo server from ws-echo-server.mjs. */
async function compareAcrossProcesses(steps: number, rounds: number): Promise<EchoComparison> {
  const echo = await spawnEchoServer();
  try {
    const serve = await spawnProvingServe(deviceSupport.id);
    try {
      return await compareWithEcho(serve.url, echo.url, steps, rounds, { serve: serve.pid, echo: echo.pid });
    } finally {
      await serve.stop();
    }
  } finally {
    await echo.stop();
  }
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
    const vsEcho = await compareInProcess(server.url, steps, opts.rounds ?? ROUNDS);
    const vsEchoProcesses = await compareAcrossProcesses(steps, opts.rounds ?? ROUNDS);
    return {
      baseline: base,
      oneClient,
      manyClients,
      ratios: {
        oneClient: oneClient.stepsPerSecond / base.stepsPerSecond,
        manyClients: manyClients.stepsPerSecond / base.stepsPerSecond,
      },
      vsEcho,
      vsEchoProcesses,
    };
  } finally {
    await server.close();
  }
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function vsEchoLines(setup: string, c: EchoComparison): string[] {
  return [
    `same ping-pong client, ${setup}, median of ${c.rounds} alternating rounds:`,
    `${"  bare ws echo server".padEnd(28)} ${c.echo.stepsPerSecond.toFixed(0).padStart(8)} steps/s  (the limit)`,
    `${"  proving serve".padEnd(28)} ${c.serve.stepsPerSecond.toFixed(0).padStart(8)} steps/s  ×${c.ratio.toFixed(3)} of the echo server (ratio of medians)`,
    ...(c.cpu
      ? [
          `${"  server CPU per round trip".padEnd(28)} serve ${c.cpu.serveUsPerStep.toFixed(1)} µs ÷ echo ${c.cpu.echoUsPerStep.toFixed(1)} µs = ×${c.cpu.ratio.toFixed(2)}`,
        ]
      : []),
    `${"  serve ÷ echo, per round".padEnd(28)} ×${median(c.roundRatios).toFixed(3)} median (×${Math.min(...c.roundRatios).toFixed(2)}–${Math.max(...c.roundRatios).toFixed(2)}; target ≥ 0.6), load ${Math.min(...c.loads).toFixed(1)}–${Math.max(...c.loads).toFixed(1)}`,
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const num = (name: string) => (flag(name) !== undefined ? Number(flag(name)) : undefined);
  const opts: WsBenchOptions = {};
  if (num("--clients") !== undefined) opts.clients = num("--clients");
  if (num("--steps") !== undefined) opts.steps = num("--steps");
  if (num("--steps-per-client") !== undefined) opts.stepsPerClient = num("--steps-per-client");
  if (num("--rounds") !== undefined) opts.rounds = num("--rounds");
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
        ...vsEchoLines("servers in their own processes (proving serve via its CLI)", r.vsEchoProcesses),
        ...vsEchoLines("servers and client in one process", r.vsEcho),
        "",
      ].join("\n"),
    );
  }
}
