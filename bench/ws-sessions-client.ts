/**
 * The client side of `bench/ws-sessions.ts`, in a process of its own: opens N WebSocket sessions on a
 * `proving serve` `/ws` (at most `--open` connections being opened at a time, so the server's accept
 * backlog is never overrun), resets each, then steps all of them at once, S steps each, every session
 * a closed loop (send a step, wait for its reply, send the next). Records the latency of every step
 * and counts every failure. Prints one JSON line (`SessionsResult`) on stdout. With `--wait` it prints
 * `{"opened": N}` once every session is open and reset and waits for a line on stdin before stepping
 * (the driver reads the server's memory and CPU time then).
 *
 *   node --import tsx bench/ws-sessions-client.ts URL SESSIONS STEPS [OPEN_AT_ONCE] [TIMEOUT_S] [--wait]
 */
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import WebSocket from "ws";

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface SessionsResult {
  sessions: number;
  /** Sessions that connected and reset. */
  opened: number;
  stepsPerSession: number;
  /** Steps answered with an observation. */
  steps: number;
  errors: { connect: number; reset: number; step: number; closed: number; timeout: number; total: number };
  /** The first few error texts. */
  firstErrors: string[];
  /** Wall seconds to connect and reset every session. */
  openSeconds: number;
  /** Reset round trips, ms. */
  resetMs: Percentiles;
  /** Wall seconds from the first step sent to the last reply. */
  stepSeconds: number;
  stepsPerSecond: number;
  /** Step round trips, ms (send to reply, as this client sees it). */
  stepMs: Percentiles;
  /** This client's CPU seconds while stepping. */
  clientCpuSeconds: number;
  clientRssMb: number;
}

const FAMILY = "denied";

function percentiles(xs: Float64Array): Percentiles {
  if (xs.length === 0) return { p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, max: Number.NaN };
  const s = xs.slice().sort();
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: s[s.length - 1] };
}

interface Session {
  ws: WebSocket;
  step: string;
  left: number;
  sentAt: number;
  onReply: ((text: string) => void) | undefined;
  finished: boolean;
}

export async function runSessions(
  url: string,
  n: number,
  stepsEach: number,
  openAtOnce = 200,
  timeoutS = 300,
  beforeSteps: (opened: number) => Promise<void> = async () => {},
): Promise<SessionsResult> {
  const errors = { connect: 0, reset: 0, step: 0, closed: 0, timeout: 0, total: 0 };
  const firstErrors: string[] = [];
  const fail = (kind: Exclude<keyof typeof errors, "total">, text: string) => {
    errors[kind]++;
    errors.total++;
    if (firstErrors.length < 5) firstErrors.push(`${kind}: ${text}`);
  };
  const sessions: Session[] = [];
  const resetMs: number[] = [];
  let stepping = false;

  const open = (seed: number) =>
    new Promise<void>((resolve) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      const s: Session = { ws, step: "", left: stepsEach, sentAt: 0, onReply: undefined, finished: false };
      let connected = false;
      let opening = true;
      const opened = () => {
        opening = false;
        resolve();
      };
      ws.on("message", (data) => {
        const h = s.onReply;
        s.onReply = undefined;
        if (h) h(String(data));
        else if (!s.finished) fail("step", `unexpected message: ${String(data).slice(0, 200)}`);
      });
      ws.on("error", (err) => {
        if (!connected) {
          fail("connect", err.message);
          opened();
        }
      });
      ws.on("close", (code, reason) => {
        if (connected && !s.finished) {
          s.finished = true;
          fail("closed", `closed ${code} ${String(reason)} with ${s.left} steps left`);
          s.onReply = undefined;
          if (opening) opened();
          else if (stepping) finishOne();
        }
      });
      ws.once("open", () => {
        connected = true;
        const t0 = performance.now();
        s.onReply = (text) => {
          resetMs.push(performance.now() - t0);
          const msg = JSON.parse(text) as {
            type: string;
            data: { observation?: { context?: { case_id?: unknown } }; message?: string };
          };
          const caseId = msg.data.observation?.context?.case_id;
          if (msg.type !== "observation" || caseId === undefined) {
            fail("reset", text.slice(0, 200));
            s.finished = true;
            ws.close();
          } else {
            s.step = JSON.stringify({
              type: "step",
              data: { tool: "get_approval", args: { case_id: String(caseId) } },
            });
            sessions.push(s);
          }
          opened();
        };
        ws.send(JSON.stringify({ type: "reset", data: { family: FAMILY, difficulty: 1, seed } }));
      });
    });

  // Open and reset, at most `openAtOnce` in progress.
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(openAtOnce, n) }, async () => {
      while (next < n) await open(next++);
    }),
  );
  const openSeconds = (performance.now() - t0) / 1000;
  await beforeSteps(sessions.length);
  const c0 = process.cpuUsage();

  // Step every open session at once, each a closed loop.
  const latencies = new Float64Array(sessions.length * stepsEach);
  let recorded = 0;
  let running = sessions.length;
  let allDone: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  function finishOne(): void {
    if (--running === 0) allDone();
  }
  const send = (s: Session) => {
    s.sentAt = performance.now();
    s.onReply = (text) => {
      const ms = performance.now() - s.sentAt;
      if (!text.startsWith('{"type":"observation"')) {
        s.finished = true;
        fail("step", text.slice(0, 200));
        s.ws.close();
        return finishOne();
      }
      latencies[recorded++] = ms;
      if (--s.left > 0) return send(s);
      s.finished = true;
      finishOne();
    };
    s.ws.send(s.step);
  };
  stepping = true;
  const s0 = performance.now();
  if (running === 0) allDone();
  for (const s of sessions) {
    if (s.finished) finishOne();
    else send(s);
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    done,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutS * 1000);
    }),
  ]);
  clearTimeout(timer);
  const stepSeconds = (performance.now() - s0) / 1000;
  for (const s of sessions) {
    if (!s.finished) {
      s.finished = true;
      fail("timeout", `no reply within ${timeoutS} s with ${s.left} steps left`);
    }
  }
  const cpu = process.cpuUsage(c0);
  const rss = process.memoryUsage().rss;
  for (const s of sessions) s.ws.terminate();
  const stepMs = percentiles(latencies.subarray(0, recorded));
  return {
    sessions: n,
    opened: sessions.length,
    stepsPerSession: stepsEach,
    steps: recorded,
    errors,
    firstErrors,
    openSeconds,
    resetMs: percentiles(Float64Array.from(resetMs)),
    stepSeconds,
    stepsPerSecond: recorded / stepSeconds,
    stepMs,
    clientCpuSeconds: (cpu.user + cpu.system) / 1e6,
    clientRssMb: rss / 2 ** 20,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const wait = process.argv.includes("--wait");
  const [url, n, steps, openAtOnce, timeoutS] = process.argv.slice(2).filter((a) => a !== "--wait");
  if (!url || !n || !steps) {
    process.stderr.write("usage: ws-sessions-client.ts URL SESSIONS STEPS [OPEN_AT_ONCE] [TIMEOUT_S]\n");
    process.exit(2);
  }
  const r = await runSessions(
    url,
    Number(n),
    Number(steps),
    openAtOnce ? Number(openAtOnce) : undefined,
    timeoutS ? Number(timeoutS) : undefined,
    async (opened) => {
      if (!wait) return;
      process.stdout.write(`${JSON.stringify({ opened })}\n`);
      await new Promise<void>((resolve) => {
        process.stdin.once("data", () => resolve());
      });
    },
  );
  process.stdout.write(`${JSON.stringify(r)}\n`);
  process.exit(0);
}
