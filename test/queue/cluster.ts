/**
 * A queue cluster for tests: a real Postgres (the store) and Redis (the queue), a gym file whose
 * plugin adds `spin@1`, and `proving worker` processes spawned in their own process groups (so a
 * test can SIGKILL or SIGSTOP a worker together with its trial processes).
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
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

/** An attached `proving run --queue ...` in a child process (to signal it), with the cluster's gym. */
export function spawnCoordinator(cluster: Cluster, store: string, args: string[], queue?: string) {
  const child = spawn(
    process.execPath,
    [
      BIN,
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
    ],
    { cwd: REPO_ROOT, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] },
  );
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
  return runCli(
    [
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
    ],
    {
      env: { NODE_OPTIONS: "--no-node-snapshot" },
    },
  );
}

export async function withStore<T>(url: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(url);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

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
