/**
 * Batched steps (issue 26): steps per second through `proving serve`'s `/ws` when one message carries
 * 64 or 256 steps (`step_batch`, one session each) against one step per message (`step`), with the
 * same client: one raw `ws` connection that sends a prebuilt message and waits for its reply
 * (ping-pong), and the same server in this process. Rounds interleave the three modes, so load from
 * other processes falls on all alike; the figure is the median of the per-round ratios.
 *
 *   node --import tsx bench/batched-steps.ts [--rounds 5] [--json]
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import type { TaskObservation } from "../src/core/contracts.ts";
import type { JsonObject } from "../src/core/json.ts";
import { startServer, worldTarget } from "../src/serve/index.ts";
import { deviceSupport } from "../src/worlds/index.ts";
import type { BenchOptions, BenchReport, Figure } from "./figures.ts";
import { median } from "./measure.ts";

const SIZES = [64, 256] as const;

/** One raw connection, ping-pong: send, wait for the reply. */
async function connect(url: string): Promise<{ ask: (text: string) => Promise<string>; close: () => void }> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  let waiting: ((text: string) => void) | undefined;
  ws.on("message", (data) => {
    const w = waiting;
    waiting = undefined;
    w?.(String(data));
  });
  return {
    ask: (text) =>
      new Promise<string>((resolve) => {
        waiting = resolve;
        ws.send(text);
      }),
    close: () => ws.close(),
  };
}

/** Steps per second of `messages` round trips of `text`, each carrying `perMessage` steps. */
async function rate(
  ask: (text: string) => Promise<string>,
  text: string,
  messages: number,
  perMessage: number,
): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < messages; i++) await ask(text);
  return (messages * perMessage) / ((performance.now() - t0) / 1000);
}

/** `proving serve` started by its CLI, as a user runs it: its URL and how to stop it. */
async function spawnServe(): Promise<{ url: string; stop: () => Promise<void> }> {
  const main = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
  const child = spawn(
    process.execPath,
    [
      "--no-node-snapshot",
      "--import",
      "tsx",
      main,
      "serve",
      "--world",
      deviceSupport.id,
      "--port",
      "0",
      "--json",
      "--heartbeat-s",
      "0",
      "--idle-timeout-s",
      "0",
      "--max-sessions",
      "600",
      "--max-steps",
      String(Number.MAX_SAFE_INTEGER),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    await exited;
  };
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`proving serve exited (${code}) before listening`)));
  });
  return { url: String((JSON.parse(line) as { url: string }).url), stop };
}

interface Rates {
  singles: number[];
  /** Per size of `SIZES`, one rate per round. */
  batched: number[][];
}

/** The interleaved rounds against one server: one step per message, then each batch size. */
async function measure(
  url: string,
  rounds: number,
  stepsPerMode: number,
  log?: (s: string) => void,
): Promise<Rates> {
  const client = await connect(url);
  try {
    const reset = JSON.parse(
      await client.ask(JSON.stringify({ type: "reset", data: { family: "denied", difficulty: 1, seed: 0 } })),
    ) as { data: { observation: TaskObservation } };
    const caseId = String(reset.data.observation.context.case_id);
    const action = { tool: "get_approval", args: { case_id: caseId } };
    // the sessions of the batches: groups of 64 on the same task, on this connection
    const ids: string[] = [];
    while (ids.length < Math.max(...SIZES)) {
      const reply = JSON.parse(
        await client.ask(
          JSON.stringify({ type: "reset", data: { family: "denied", difficulty: 1, seed: 0, group: 64 } }),
        ),
      ) as { type: string; data: { episodes: { episode_id: string }[] } };
      if (reply.type !== "reset_group") throw new Error(`group reset failed: ${JSON.stringify(reply)}`);
      ids.push(...reply.data.episodes.map((e) => e.episode_id));
    }
    const single = JSON.stringify({ type: "step", data: action });
    const batches = SIZES.map((n) =>
      JSON.stringify({
        type: "step_batch",
        data: { steps: ids.slice(0, n).map((episode_id) => ({ episode_id, action })) } as JsonObject,
      }),
    );
    // a batch's reply is checked once: every entry a step, none an error
    for (const text of batches) {
      const reply = JSON.parse(await client.ask(text)) as { type: string; data: { results: JsonObject[] } };
      if (reply.type !== "step_batch" || reply.data.results.some((r) => r.error !== undefined)) {
        throw new Error(`a batch failed: ${JSON.stringify(reply).slice(0, 300)}`);
      }
    }
    // warm-up, then interleaved rounds
    await rate(client.ask, single, 200, 1);
    const singles: number[] = [];
    const batched: number[][] = SIZES.map(() => []);
    for (let r = 0; r < rounds; r++) {
      log?.(`[batched-steps] round ${r + 1}/${rounds}`);
      singles.push(await rate(client.ask, single, stepsPerMode, 1));
      for (const [i, n] of SIZES.entries()) {
        batched[i].push(await rate(client.ask, batches[i], Math.max(1, Math.round(stepsPerMode / n)), n));
      }
    }
    return { singles, batched };
  } finally {
    client.close();
  }
}

/** The ceiling: the same step on an in-process environment, no server (median of `rounds`). */
async function inProcess(rounds: number, steps: number): Promise<number> {
  const env = deviceSupport.create();
  const task = deviceSupport.generateTask({ family: "denied", difficulty: 1, seed: 0 });
  const first = (await env.reset({ task, seed: 0 })) as TaskObservation;
  const args = { case_id: String(first.context.case_id) };
  const rates: number[] = [];
  for (let r = 0; r < rounds + 1; r++) {
    const t0 = performance.now();
    for (let i = 0; i < steps; i++) await env.step({ tool: "get_approval", args, callId: `c${i}` });
    if (r > 0) rates.push(steps / ((performance.now() - t0) / 1000));
  }
  return median(rates);
}

/**
 * The least a batched step costs on the server, in seconds (median of `rounds`): what any server
 * answering this wire format must do per entry — parse the client's batch text, step the world, and
 * serialize the reply entry (the same fields as `proving serve`'s) — with nothing else: no sessions,
 * no queues, no socket. 64 environments on one task, the step of the rounds above.
 */
async function floorPerStep(rounds: number, steps: number): Promise<number> {
  const n = SIZES[0];
  const task = deviceSupport.generateTask({ family: "denied", difficulty: 1, seed: 0 });
  const envs = Array.from({ length: n }, () => deviceSupport.create());
  let first: TaskObservation | undefined;
  for (const env of envs) first = (await env.reset({ task, seed: 0 })) as TaskObservation;
  const action = { tool: "get_approval", args: { case_id: String(first?.context.case_id) } };
  const ids = envs.map((_, i) => `ep-00000000-0000-4000-8000-${String(i).padStart(12, "0")}`);
  const text = JSON.stringify({
    type: "step_batch",
    data: { steps: ids.map((episode_id) => ({ episode_id, action })) },
  });
  let count = 0;
  const message = async (): Promise<string> => {
    const entries = (JSON.parse(text) as { data: { steps: { episode_id: string; action: JsonObject }[] } })
      .data.steps;
    count++;
    const results = await Promise.all(
      entries.map(async (e, i) => {
        const r = await envs[i].step({
          tool: String(e.action.tool),
          args: e.action.args as JsonObject,
          callId: `call-${count}`,
        });
        const done = r.terminated || r.truncated;
        const metadata = {
          episode_id: e.episode_id,
          step_count: count,
          now: r.info.now,
          terminated: r.terminated,
          truncated: r.truncated,
        };
        return { episode_id: e.episode_id, observation: r.observation, reward: r.reward, done, metadata };
      }),
    );
    return JSON.stringify({ type: "step_batch", data: { results } });
  };
  const perRound: number[] = [];
  const messages = Math.max(1, Math.round(steps / n));
  for (let r = 0; r < rounds + 1; r++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < messages; i++) await message();
    const c = process.cpuUsage(c0);
    if (r > 0) perRound.push((c.user + c.system) / 1e6 / (messages * n));
  }
  return median(perRound);
}

export async function benchBatchedSteps(opts: BenchOptions & { rounds?: number } = {}): Promise<BenchReport> {
  const t0 = performance.now();
  const rounds = opts.rounds ?? (opts.quick ? 3 : 5);
  const stepsPerMode = opts.quick ? 1024 : 4096;
  const figures: Figure[] = [
    {
      id: "batch_in_process_env_steps_per_s",
      label: "in-process env.step, the same step (no server)",
      value: await inProcess(rounds, stepsPerMode),
      unit: "steps/s",
    },
  ];
  const floor = await floorPerStep(rounds, stepsPerMode);
  figures.push({
    id: "batch_floor_step_us",
    label: "least server CPU per batched step (parse + env.step + serialize, nothing else)",
    value: floor * 1e6,
    unit: "µs",
  });
  const own = await spawnServe();
  try {
    const rates = await measure(own.url, rounds, stepsPerMode, opts.log);
    figures.push(...figuresOf(rates, "proving serve in its own process", ""));
    // a round trip of one step per message (S) is what a batch saves; at best a batch of n costs
    // S + n × floor, so n·S / (S + n·floor) bounds the ratio whatever the server does
    const n = SIZES[0];
    const ceilings = rates.singles.map((rate) => n / rate / (1 / rate + n * floor));
    figures.push({
      id: "batch_64_ceiling",
      label: `  ceiling of ${n} per message ÷ one per message (the server at the least above, the socket free)`,
      value: median(ceilings),
      unit: "×",
      spread: [Math.min(...ceilings), Math.max(...ceilings)],
    });
  } finally {
    await own.stop();
  }
  const server = await startServer({
    target: worldTarget(deviceSupport),
    port: 0,
    heartbeatMs: 0,
    maxSessions: 600,
    maxSteps: Number.MAX_SAFE_INTEGER,
    idleTimeoutMs: 0,
  });
  try {
    figures.push(
      ...figuresOf(
        await measure(server.url, rounds, stepsPerMode, opts.log),
        "server and client in one process",
        "_one_process",
      ),
    );
  } finally {
    await server.close();
  }
  return {
    name: "batched-steps",
    title: "WebSocket step_batch: steps/s at 64 and 256 sessions per message ÷ one step per message",
    figures,
    notes: [
      "One raw ws ping-pong client (send a prebuilt message, wait for its reply) for every mode; the step is device-support's get_approval, each batch entry a session of its own; rounds interleave the modes and each ratio is the median of the per-round ratios. The target is held by the setup users run: proving serve in its own process (started by its CLI).",
    ],
    seconds: (performance.now() - t0) / 1000,
  };
}

function figuresOf({ singles, batched }: Rates, setup: string, idPart: string): Figure[] {
  const singleRate = median(singles);
  const figures: Figure[] = [
    {
      id: `batch_single${idPart}_steps_per_s`,
      label: `WS step, one step per message (${setup})`,
      value: singleRate,
      unit: "steps/s",
    },
  ];
  for (const [i, n] of SIZES.entries()) {
    const ratios = batched[i].map((x, r) => x / singles[r]);
    const ratio = median(ratios);
    figures.push({
      id: `batch_${n}${idPart}_steps_per_s`,
      label: `WS step_batch, ${n} sessions per message (${setup})`,
      value: median(batched[i]),
      unit: "steps/s",
      baseline: { label: "one step per message", value: singleRate },
      ratio: median(batched[i]) / singleRate,
    });
    figures.push({
      id: `batch_${n}${idPart}_round_ratio`,
      label: `  ${n} per message ÷ one per message, single rounds (median, min–max)`,
      value: ratio,
      unit: "×",
      spread: [Math.min(...ratios), Math.max(...ratios)],
      ...(n === 64 && idPart === "" ? { target: { text: "≥ 10×", met: ratio >= 10 } } : {}),
    });
  }
  return figures;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const i = args.indexOf("--rounds");
  const report = await benchBatchedSteps({
    ...(i >= 0 ? { rounds: Number(args[i + 1]) } : {}),
    log: (s) => process.stderr.write(`${s}\n`),
  });
  if (args.includes("--json")) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else for (const f of report.figures) process.stdout.write(`${f.label}: ${f.value.toFixed(1)} ${f.unit}\n`);
}
