/**
 * 10,000 concurrent WebSocket episodes on one `proving serve` (issue 28): the server started by its
 * CLI in a process of its own (`--max-sessions` raised to fit), a client in another process
 * (`ws-sessions-client.ts`) that opens and resets every session, then steps all of them at once, each
 * a closed loop. Held to: no error, p99 step latency ≤ 20× p50; every figure also as a ratio to the
 * same run at 1,000 sessions (a fresh server each time, the two sizes alternating over rounds).
 *
 *   node --import tsx bench/ws-sessions.ts [--quick]
 */
import os from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { atMost, type BenchOptions, type BenchReport, type Figure, formatNumber } from "./figures.ts";
import { median, spreadOf } from "./measure.ts";
import { cpuSecondsOf, openFileLimit, residentBytes, spawnNode, spawnProvingServe } from "./spawn-server.ts";
import type { SessionsResult } from "./ws-sessions-client.ts";

export const SESSIONS = 10_000;
export const BASE_SESSIONS = 1_000;
/** p99 ÷ p50 step latency at 10,000 sessions. */
export const TAIL_TARGET = 20;
const WORLD = "device-support@1";
const CLIENT = fileURLToPath(new URL("./ws-sessions-client.ts", import.meta.url));
/** Connections being opened at a time (Node's accept backlog is 511). */
const OPEN_AT_ONCE = 200;
/** Sockets beyond the sessions each process needs (stdio, the listener, tsx's files). */
const SPARE_FDS = 256;

export interface SessionsRun {
  client: SessionsResult;
  /** Server RSS before the first connection and with every session open and reset, bytes. */
  serverRssIdle: number;
  serverRssOpen: number;
  /** Peak server RSS over the whole run, bytes. */
  serverRssPeak: number;
  /** Server CPU seconds while the client stepped. */
  serverCpuSteps: number;
  /** 1-minute load average when the stepping started. */
  load: number;
}

/** One fresh server and one client process: `sessions` sessions, `steps` steps each. */
export async function runSessionsOnce(sessions: number, steps: number, timeoutS = 120): Promise<SessionsRun> {
  const limit = openFileLimit();
  if (limit !== undefined && limit < sessions + SPARE_FDS) {
    throw new Error(
      `the open-file limit (hard ${limit}) is below the ${sessions + SPARE_FDS} descriptors ${sessions.toLocaleString("en-US")} WebSocket sessions need in each of the server and the client; raise it (ulimit -Hn, as root) to run this benchmark`,
    );
  }
  const server = await spawnProvingServe(WORLD, ["--max-sessions", String(sessions + 64)]);
  const child = spawnNode([
    "--import",
    "tsx",
    CLIENT,
    server.url,
    String(sessions),
    String(steps),
    String(OPEN_AT_ONCE),
    String(timeoutS),
    "--wait",
  ]);
  let stderr = "";
  child.stderr!.on("data", (d) => {
    stderr = (stderr + String(d)).slice(-4000);
  });
  const killClient = () => child.kill("SIGKILL");
  process.once("exit", killClient);
  try {
    const idle = residentBytes(server.pid);
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const exited = new Promise<never>((_, reject) =>
      child.once("exit", (code) =>
        reject(new Error(`ws-sessions client exited (${code}): ${stderr.trim()}`)),
      ),
    );
    exited.catch(() => {});
    const line = async (): Promise<string> => {
      const next = await Promise.race([lines.next(), exited]);
      if (next.done) throw new Error(`ws-sessions client ended its output: ${stderr.trim()}`);
      return next.value;
    };
    JSON.parse(await line()) as { opened: number };
    const open = residentBytes(server.pid);
    const load = os.loadavg()[0];
    const cpu0 = cpuSecondsOf(server.pid);
    child.stdin!.write("go\n");
    const client = JSON.parse(await line()) as SessionsResult;
    const cpu1 = cpuSecondsOf(server.pid);
    const end = residentBytes(server.pid);
    return {
      client,
      serverRssIdle: idle?.rss ?? Number.NaN,
      serverRssOpen: open?.rss ?? Number.NaN,
      serverRssPeak: end?.peak ?? Number.NaN,
      serverCpuSteps: cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : Number.NaN,
      load,
    };
  } finally {
    process.off("exit", killClient);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await server.stop();
  }
}

interface Derived {
  errors: number;
  stepsPerSecond: number;
  p50: number;
  p99: number;
  tail: number;
  serverCpuUsPerStep: number;
  serverKbPerSession: number;
  openPerSecond: number;
}

function derive(r: SessionsRun): Derived {
  const c = r.client;
  return {
    errors: c.errors.total,
    stepsPerSecond: c.stepsPerSecond,
    p50: c.stepMs.p50,
    p99: c.stepMs.p99,
    tail: c.stepMs.p99 / c.stepMs.p50,
    serverCpuUsPerStep: (r.serverCpuSteps / c.steps) * 1e6,
    serverKbPerSession: (r.serverRssOpen - r.serverRssIdle) / c.sessions / 1024,
    openPerSecond: c.opened / c.openSeconds,
  };
}

const fmtN = (n: number) => n.toLocaleString("en-US");

export async function benchWsSessions(opts: BenchOptions = {}): Promise<BenchReport> {
  const t0 = performance.now();
  const rounds = opts.quick ? 1 : 3;
  // The same number of steps at both sizes: SESSIONS × stepsBig.
  const stepsBig = opts.quick ? 5 : 20;
  const stepsBase = (stepsBig * SESSIONS) / BASE_SESSIONS;
  const base: SessionsRun[] = [];
  const big: SessionsRun[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const [n, steps, out] of [
      [BASE_SESSIONS, stepsBase, base],
      [SESSIONS, stepsBig, big],
    ] as const) {
      const run = await runSessionsOnce(n, steps);
      out.push(run);
      const d = derive(run);
      opts.log?.(
        `  round ${r + 1}/${rounds}, ${fmtN(n)} sessions: ${d.errors} errors, ${Math.round(d.stepsPerSecond)} steps/s, p50 ${d.p50.toFixed(1)} ms, p99 ${d.p99.toFixed(1)} ms, server ${d.serverCpuUsPerStep.toFixed(1)} µs CPU/step, ${d.serverKbPerSession.toFixed(1)} KB/session, opened in ${run.client.openSeconds.toFixed(1)} s, load ${run.load.toFixed(1)}`,
      );
    }
  }
  const b = base.map(derive);
  const g = big.map(derive);
  const med = (xs: Derived[], k: keyof Derived) => median(xs.map((x) => x[k]));
  const ratio = (k: keyof Derived) => median(g.map((x, i) => x[k] / b[i][k]));
  const errorsBig = g.reduce((a, x) => a + x.errors, 0);
  const errorsBase = b.reduce((a, x) => a + x.errors, 0);
  const tailBig = med(g, "tail");
  const firstErrors = [...big, ...base].flatMap((r) => r.client.firstErrors).slice(0, 3);
  const loads = [...base, ...big].map((r) => r.load);
  const per = (label: string, k: keyof Derived, unit: string, id: string, extra: Partial<Figure> = {}) => [
    {
      id: `ws_sessions_1k_${id}`,
      label: `${label}, ${fmtN(BASE_SESSIONS)} sessions`,
      value: med(b, k),
      unit,
      ...(rounds > 1 ? { spread: spreadOf(b.map((x) => x[k])) } : {}),
    },
    {
      id: `ws_sessions_10k_${id}`,
      label: `${label}, ${fmtN(SESSIONS)} sessions`,
      value: med(g, k),
      unit,
      ...(rounds > 1 ? { spread: spreadOf(g.map((x) => x[k])) } : {}),
      baseline: { label: fmtN(BASE_SESSIONS), value: med(b, k) },
      ratio: ratio(k),
      ...extra,
    },
  ];
  const figures: Figure[] = [
    {
      id: "ws_sessions_10k_errors",
      label: `errors over ${fmtN(SESSIONS)} sessions × ${rounds} run${rounds > 1 ? "s" : ""} (connect, reset, step, close, timeout)`,
      value: errorsBig,
      unit: "",
      target: atMost(errorsBig, 0, ""),
    },
    {
      id: "ws_sessions_1k_errors",
      label: `errors over ${fmtN(BASE_SESSIONS)} sessions × ${rounds}`,
      value: errorsBase,
      unit: "",
      target: atMost(errorsBase, 0, ""),
    },
    ...per("steps/s (wall)", "stepsPerSecond", "steps/s", "steps_per_s"),
    ...per("step latency p50", "p50", "ms", "p50_ms"),
    ...per("step latency p99", "p99", "ms", "p99_ms"),
    {
      id: "ws_sessions_1k_tail",
      label: `p99 ÷ p50, ${fmtN(BASE_SESSIONS)} sessions`,
      value: med(b, "tail"),
      unit: "×",
    },
    {
      id: "ws_sessions_10k_tail",
      label: `p99 ÷ p50, ${fmtN(SESSIONS)} sessions`,
      value: tailBig,
      unit: "×",
      target: atMost(tailBig, TAIL_TARGET, "×"),
    },
    ...per("sessions connected and reset per second (wall)", "openPerSecond", "sessions/s", "open_per_s"),
    ...per("server CPU per step", "serverCpuUsPerStep", "µs", "server_cpu_us_per_step"),
    ...per("server RSS per open session", "serverKbPerSession", "KB", "server_kb_per_session"),
  ];
  const peakMb = Math.max(...big.map((r) => r.serverRssPeak)) / 2 ** 20;
  return {
    name: "ws-sessions",
    title: `${fmtN(SESSIONS)} concurrent WebSocket episodes on one proving serve, as a ratio to ${fmtN(BASE_SESSIONS)}`,
    figures,
    notes: [
      `proving serve (${WORLD}, --max-sessions sessions+64) started by its CLI, a fresh one per run; one client process opens the sessions ${OPEN_AT_ONCE} at a time, resets each (get_approval task), then steps all at once, each a closed loop (send, wait for the reply, send again): ${fmtN(SESSIONS)} × ${stepsBig} and ${fmtN(BASE_SESSIONS)} × ${stepsBase} steps (the same total). ${rounds} round${rounds > 1 ? "s" : ""}, sizes alternating; medians, ratios 10k ÷ 1k per round.`,
      `Latency is send-to-reply as the client sees it; with every session in a closed loop it is ~sessions ÷ steps/s, so p50 grows with the session count by design — the tail (p99 ÷ p50) and steps/s are the figures to hold. The server's peak RSS ${peakMb.toFixed(0)} MB; client CPU ${formatNumber(median(big.map((r) => r.client.clientCpuSeconds)))} s while stepping.`,
      `Load average (1 min) when stepping started: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} (${os.availableParallelism()} cores, shared).`,
      ...(firstErrors.length ? [`first errors: ${firstErrors.join(" | ")}`] : []),
    ],
    seconds: (performance.now() - t0) / 1000,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { printReport } = await import("./run.ts");
  const r = await benchWsSessions({
    quick: process.argv.includes("--quick"),
    log: (s) => process.stderr.write(`${s}\n`),
  });
  printReport(r, (s) => process.stdout.write(`${s}\n`));
}
