/**
 * A queue cluster for tests: a real Postgres (the store) and Redis (the queue), a gym file whose
 * plugin adds `spin@1`, and `proving worker` processes spawned in their own process groups (so a
 * test can SIGKILL or SIGSTOP a worker together with its trial processes).
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import type { TrialSummary } from "../../src/core/trial-summary.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { REPO_ROOT, runCli } from "../support/cli.ts";
import { type PostgresServer, type RedisServer, startPostgres, startRedis } from "../support/services.ts";

const BIN = fileURLToPath(new URL("../../bin/proving.mjs", import.meta.url));
const PLUGIN = fileURLToPath(new URL("./fixtures/spin-plugin.mjs", import.meta.url));

export interface Cluster {
  pg: PostgresServer;
  redis: RedisServer;
  dir: string;
  gymFile: string;
  /** A fresh database for one test. */
  freshStore(): Promise<string>;
  /** The cluster's Redis on database `db` (a queue of its own). */
  queueUrl(db: number): string;
  destroy(): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-queue-"));
  const gymFile = path.join(dir, "gym.json");
  // the default gym's agent kinds (LLM providers for the global-limit test), device-support and spin@1
  const base = defaultGym().describe();
  fs.writeFileSync(
    gymFile,
    JSON.stringify({ ...base, plugins: [PLUGIN], worlds: ["device-support@1", "spin@1"] }),
  );
  return {
    pg,
    redis,
    dir,
    gymFile,
    freshStore: () => pg.createDatabase(),
    queueUrl: (db) => redis.url.replace(/\/0$/, `/${db}`),
    async destroy() {
      await Promise.allSettled([pg.destroy(), redis.destroy()]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const childEnv = () => {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  // no re-exec wrapper: the worker is the process we signal
  return { ...env, NO_COLOR: "1", NODE_OPTIONS: `--no-node-snapshot ${env.NODE_OPTIONS ?? ""}`.trim() };
};

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  log: () => string;
  /** Signals the worker's whole process group (the worker and its trial processes). */
  signalGroup(signal: NodeJS.Signals): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnWorker(
  cluster: Cluster,
  store: string,
  args: string[] = [],
  opts: { queue?: string } = {},
): WorkerProcess {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "--gym",
      cluster.gymFile,
      "worker",
      "--queue",
      opts.queue ?? cluster.redis.url,
      "--store",
      store,
      ...args,
    ],
    { cwd: REPO_ROOT, env: childEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    pid: child.pid!,
    log: () => out,
    signalGroup(signal) {
      try {
        process.kill(-child.pid!, signal);
      } catch {}
    },
    exited,
  };
}

/** Stops workers: SIGTERM (drain) first, then SIGKILL the group if they linger. */
export async function stopWorkers(workers: WorkerProcess[]): Promise<void> {
  await Promise.all(
    workers.map(async (w) => {
      if (w.child.exitCode !== null || w.child.signalCode !== null) return w.signalGroup("SIGKILL");
      w.signalGroup("SIGCONT");
      w.child.kill("SIGTERM");
      const t = setTimeout(() => w.signalGroup("SIGKILL"), 20_000);
      await w.exited;
      clearTimeout(t);
      w.signalGroup("SIGKILL"); // any trial process left behind
    }),
  );
}

/** `--gym <cluster's gym> run --queue ... --store ...` with `args`, quiet (no report, no progress). */
function runArgs(cluster: Cluster, store: string, args: string[], queue?: string): string[] {
  return [
    "--gym",
    cluster.gymFile,
    "run",
    "--queue",
    queue ?? cluster.redis.url,
    "--store",
    store,
    "--no-report",
    "--no-progress",
    ...args,
  ];
}

/** An attached `proving run --queue ...` in a child process (to signal it), with the cluster's gym. */
export function spawnCoordinator(cluster: Cluster, store: string, args: string[], queue?: string) {
  const child = spawn(process.execPath, [BIN, ...runArgs(cluster, store, args, queue)], {
    cwd: REPO_ROOT,
    env: childEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, log: () => out, exited };
}

/** `proving run --queue ...` through the CLI with the cluster's gym. */
export function runQueued(cluster: Cluster, store: string, args: string[], queue?: string) {
  return runCli(runArgs(cluster, store, args, queue), { env: { NODE_OPTIONS: "--no-node-snapshot" } });
}

export async function withStore<T>(url: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(url);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The trials of experiment `id` once at least `planned` are recorded (a store briefly down is waited out). */
export function waitForTrials(store: string, id: string, planned: number): Promise<TrialSummary[]> {
  return waitFor(`${id} complete`, () =>
    withStore(store, async (s): Promise<TrialSummary[] | undefined> => {
      const trials = await s.listTrials(id);
      return trials.length >= planned ? trials : undefined;
    }).catch(() => undefined),
  );
}

/** The attempts recorded for experiment `id`. */
export const attemptsOf = (store: string, id: string) => withStore(store, (s) => s.listAttempts(id));

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 120_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The worker flags that put it on the global per-endpoint LLM limit (audited under `auditKey`). */
export function llmLimitArgs(o: {
  name: string;
  concurrency: number;
  rpm: number;
  windowMs: number;
  auditKey: string;
}): string[] {
  return [
    "--name",
    o.name,
    "--concurrency",
    String(o.concurrency),
    "--llm-rpm",
    String(o.rpm),
    "--llm-window-ms",
    String(o.windowMs),
    "--llm-audit-key",
    o.auditKey,
  ];
}

/** The admission times (Redis server clock, ms) audited under `key` in database `db`, sorted. */
export async function auditedAdmissions(cluster: Cluster, db: number, key: string): Promise<number[]> {
  const { Redis } = await import("ioredis");
  const raw = new Redis(cluster.redis.port, "127.0.0.1", { db });
  try {
    const entries = await raw.lrange(key, 0, -1);
    return entries.map((e) => Number(e.slice(e.lastIndexOf(" ") + 1))).sort((a, b) => a - b);
  } finally {
    raw.disconnect();
  }
}

/** The most admissions in any half-open window [t, t + windowMs) of sorted times. */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  let worst = 0;
  let j = 0;
  for (let i = 0; i < times.length; i++) {
    if (j < i) j = i;
    while (j < times.length && times[j]! < times[i]! + windowMs) j++;
    worst = Math.max(worst, j - i);
  }
  return worst;
}

/** A queue test file's cluster and workers; see {@link useCluster}. */
export interface ClusterSuite {
  /** The cluster (started by the file's `before` hook). */
  readonly cluster: Cluster;
  /** Every worker {@link ClusterSuite.worker} spawned (stopped by the file's `after` hook). */
  readonly workers: WorkerProcess[];
  /** Each test its own Postgres database and Redis database. */
  fresh(): Promise<{ store: string; queue: string }>;
  /** A worker on `store` and `queue` with short lock and reconcile periods, stopped after the file. */
  worker(store: string, queue: string, args?: string[]): WorkerProcess;
  /** An experiment file for spin@1 with these params (written in the cluster's directory). */
  spinExperiment(name: string, params: Record<string, unknown>): string;
}

/**
 * Registers the file's `before` (start the cluster, unless `skip`) and `after` (stop the workers,
 * destroy the cluster) hooks; call it at the top level of a test file.
 */
export function useCluster(skip: boolean | string): ClusterSuite {
  let cluster: Cluster | undefined;
  let db = 0;
  const workers: WorkerProcess[] = [];
  const started = (): Cluster => {
    if (!cluster) throw new Error("the queue cluster is not started (skipped?)");
    return cluster;
  };
  before(async () => {
    if (!skip) cluster = await startCluster();
  });
  after(async () => {
    await stopWorkers(workers);
    await cluster?.destroy();
  });
  return {
    get cluster() {
      return started();
    },
    workers,
    async fresh() {
      const c = started();
      return { store: await c.freshStore(), queue: c.queueUrl(++db) };
    },
    worker(store, queue, args = []) {
      const w = spawnWorker(started(), store, ["--lock-ms", "2000", "--reconcile-ms", "1000", ...args], {
        queue,
      });
      workers.push(w);
      return w;
    },
    spinExperiment(name, params) {
      const file = path.join(started().dir, `${name}.json`);
      fs.writeFileSync(file, JSON.stringify({ params }));
      return file;
    },
  };
}
