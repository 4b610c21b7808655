/**
 * Servers in processes of their own, for the WebSocket benchmarks: `proving serve` started by its CLI
 * (as a user runs it) and the bare echo server of `ws-echo-server.mjs`. Each prints `{"ws_url": ...}`
 * as its first stdout line once listening.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export interface SpawnedServer {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

/**
 * Runs `node ARGS` with the soft open-file limit raised to the hard one first (through `sh`), so a
 * process that holds thousands of sockets is not stopped by a low default soft limit.
 */
export function spawnNode(args: string[], stdio: "pipe" | "ignore-stdin" = "pipe"): ChildProcess {
  return spawn(
    "sh",
    ["-c", 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"', process.execPath, ...args],
    {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stdio: [stdio === "pipe" ? "pipe" : "ignore", "pipe", "pipe"],
    },
  );
}

/** The soft open-file limit a child started by `spawnNode` gets (the hard limit here), or undefined off Linux. */
export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const hard = line?.trim().split(/\s+/)[4];
    return hard === undefined ? undefined : hard === "unlimited" ? Number.POSITIVE_INFINITY : Number(hard);
  } catch {
    return undefined;
  }
}

/** Resident set size of a process and its peak (VmRSS, VmHWM), in bytes, on Linux. */
export function residentBytes(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) =>
      Number(/^\S+:\s+(\d+)/.exec(status.split("\n").find((l) => l.startsWith(key)) ?? "")?.[1]);
    const rss = kb("VmRSS:");
    const peak = kb("VmHWM:");
    return Number.isFinite(rss) && Number.isFinite(peak) ? { rss: rss * 1024, peak: peak * 1024 } : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used so far, on Linux (clock ticks of 1/100 s). */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[0] is the state (field 3); utime and stime are fields 14 and 15
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** A server in a child process that prints `{"ws_url": ...}` as its first stdout line. */
export async function spawnServer(args: string[]): Promise<SpawnedServer> {
  const child = spawnNode(args);
  let stderr = "";
  child.stderr!.on("data", (chunk) => {
    stderr = (stderr + String(chunk)).slice(-4000);
  });
  const stopOnExit = () => child.kill("SIGKILL");
  process.once("exit", stopOnExit);
  const stop = async () => {
    process.off("exit", stopOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    await exited;
  };
  try {
    const lines = createInterface({ input: child.stdout! });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no address from ${args.join(" ")} within 60 s`)),
        60_000,
      );
      child.once("exit", (code) =>
        reject(new Error(`${args.join(" ")} exited (${code}) before listening: ${stderr.trim()}`)),
      );
      lines.once("line", (line) => {
        clearTimeout(timer);
        resolve(String((JSON.parse(line) as { ws_url: string }).ws_url));
      });
    });
    return { url, pid: child.pid!, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** `proving serve` through its CLI on a free loopback port, printing its address as JSON; extra flags appended. */
export function spawnProvingServe(world: string, extra: string[] = []): Promise<SpawnedServer> {
  return spawnServer([
    "--no-node-snapshot",
    "--import",
    "tsx",
    fileURLToPath(new URL("../src/cli/main.ts", import.meta.url)),
    "serve",
    "--world",
    world,
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--json",
    "--max-steps",
    String(Number.MAX_SAFE_INTEGER),
    ...extra,
  ]);
}

/** The bare `ws` echo server (`ws-echo-server.mjs`) in a process of its own. */
export function spawnEchoServer(): Promise<SpawnedServer> {
  return spawnServer([fileURLToPath(new URL("./ws-echo-server.mjs", import.meta.url))]);
}
