/**
 * Real Postgres and Redis servers for tests: each on a free 127.0.0.1 port with its own temporary
 * data directory, stopped (and the directory removed) by the test that started it. Under CI=true a
 * missing binary fails the test instead of skipping it (`postgresSkip()` / `redisSkip()` are false).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const IS_ROOT = process.getuid?.() === 0;

function findBinary(name: string, dirs: string[]): string | undefined {
  for (const dir of [...(process.env.PATH ?? "").split(":"), ...dirs]) {
    if (!dir) continue;
    const file = path.join(dir, name);
    if (fs.existsSync(file)) return file;
  }
  return undefined;
}

function postgresBinDirs(): string[] {
  const root = "/usr/lib/postgresql";
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => path.join(root, v, "bin"));
}

export const PG_CTL = findBinary("pg_ctl", postgresBinDirs());
export const INITDB = PG_CTL ? path.join(path.dirname(PG_CTL), "initdb") : undefined;
export const REDIS_SERVER = findBinary("redis-server", ["/usr/bin", "/usr/sbin"]);

const missing = (what: string, pkg: string) =>
  `no ${what} (apt-get install -y ${pkg}); under CI=true this fails instead`;

/** `false` when Postgres tests can run; otherwise why they skip. Under CI=true, always `false`. */
export function postgresSkip(): false | string {
  if (process.env.CI === "true") return false;
  return PG_CTL && INITDB && fs.existsSync(INITDB) ? false : missing("initdb/pg_ctl", "postgresql");
}

/** `false` when Redis tests can run; otherwise why they skip. Under CI=true, always `false`. */
export function redisSkip(): false | string {
  if (process.env.CI === "true") return false;
  return REDIS_SERVER ? false : missing("redis-server", "redis-server");
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

function run(file: string, args: string[], asPostgres: boolean): Promise<string> {
  const [cmd, argv] =
    asPostgres && IS_ROOT ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { timeout: 120_000 }, (err, stdout, stderr) => {
      if (err)
        reject(new Error(`${path.basename(file)} ${args.join(" ")} failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

export interface PostgresServer {
  readonly port: number;
  readonly dataDir: string;
  /** A URL for `database` (default `postgres`). */
  url(database?: string): string;
  /** Creates a fresh, empty database and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (fast shutdown: open connections are dropped), keeping its data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
  /** Stops the server and removes its data directory. */
  destroy(): Promise<void>;
}

let dbCounter = 0;

/** initdb + pg_ctl start on a free loopback port, in a temporary data directory. */
export async function startPostgres(): Promise<PostgresServer> {
  if (!PG_CTL || !INITDB) throw new Error(missing("initdb/pg_ctl", "postgresql"));
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "proving-pg-"));
  const dataDir = path.join(base, "data");
  fs.mkdirSync(dataDir, { mode: 0o700 });
  if (IS_ROOT) {
    fs.chmodSync(base, 0o755);
    const { uid, gid } = await postgresIds();
    fs.chownSync(dataDir, uid, gid);
  }
  await run(INITDB, ["-D", dataDir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"], true);
  const port = await freePort();
  const log = path.join(dataDir, "server.log");
  const options = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dataDir}`,
    "-c fsync=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  const start = () =>
    run(PG_CTL, ["-D", dataDir, "-l", log, "-o", options, "-w", "-t", "60", "start"], true).then(
      () => undefined,
    );
  const stop = () =>
    run(PG_CTL, ["-D", dataDir, "-m", "fast", "-w", "-t", "60", "stop"], true).then(() => undefined);
  await start();
  let running = true;
  const url = (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    dataDir,
    url,
    async createDatabase(name?: string) {
      const db = name ?? `t_${process.pid}_${++dbCounter}`;
      const pg = await import("pg");
      const client = new pg.default.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`create database "${db}"`);
      } finally {
        await client.end();
      }
      return url(db);
    },
    async stop() {
      if (running) await stop();
      running = false;
    },
    async start() {
      if (!running) await start();
      running = true;
    },
    async restart() {
      if (running) await stop();
      running = false;
      await start();
      running = true;
    },
    async destroy() {
      if (running) await stop().catch(() => undefined);
      running = false;
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const out = await run("id", ["-u", "postgres"], false);
  const gid = await run("id", ["-g", "postgres"], false);
  return { uid: Number(out.trim()), gid: Number(gid.trim()) };
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly pid: number | undefined;
  /** SIGKILL the server (its append-only file keeps what it had written). */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory; `empty` deletes its data first. */
  start(opts?: { empty?: boolean }): Promise<void>;
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>;
}

/** redis-server on a free loopback port, AOF persistence (fsync always), no eviction. */
export async function startRedis(): Promise<RedisServer> {
  if (!REDIS_SERVER) throw new Error(missing("redis-server", "redis-server"));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    const proc = spawn(
      REDIS_SERVER,
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--save",
        "",
        "--appendonly",
        "yes",
        "--appendfsync",
        "always",
        "--maxmemory-policy",
        "noeviction",
        "--protected-mode",
        "no",
        "--daemonize",
        "no",
        "--logfile",
        path.join(dir, "redis.log"),
      ],
      { stdio: "ignore" },
    );
    child = proc;
    await waitForPort(port, 30_000);
  };
  const kill = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once("exit", () => resolve());
      proc.kill("SIGKILL");
    });
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    get pid() {
      return child?.pid;
    },
    kill,
    async start(opts = {}) {
      await kill();
      if (opts.empty) {
        for (const f of fs.readdirSync(dir))
          if (f !== "redis.log") fs.rmSync(path.join(dir, f), { recursive: true, force: true });
      }
      await launch();
    },
    async destroy() {
      await kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.end();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
