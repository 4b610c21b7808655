/**
 * The `proving` CLI wrapper (`bin/proving.mjs`) re-runs the CLI in a child with `--no-node-snapshot`.
 * Killing the process a user started — `node bin/proving.mjs serve`, or `npx proving serve` (npm →
 * `sh -c` → the wrapper → the CLI) — by its pid, with any signal or SIGKILL, must take the real
 * server down with it: the port closes and no process of it remains.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { REPO_ROOT } from "../support/cli.ts";

const BIN = path.join(REPO_ROOT, "bin", "proving.mjs");

/** A project with the CLI installed the way npm installs a bin: `node_modules/.bin/proving`. */
const project = fs.mkdtempSync(path.join(os.tmpdir(), "proving-bin-"));
fs.writeFileSync(
  path.join(project, "package.json"),
  '{"name":"bin-lifetime","version":"1.0.0","private":true}\n',
);
fs.mkdirSync(path.join(project, "node_modules", ".bin"), { recursive: true });
fs.symlinkSync(BIN, path.join(project, "node_modules", ".bin", "proving"));
after(() => fs.rmSync(project, { recursive: true, force: true }));

/** Pids of every process whose command line holds `marker` (a token only this test's server has). */
function pidsWith(marker: string): number[] {
  const out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((line) => line.includes(marker) && !line.includes("ps -eo"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * How the test starts `proving serve`: directly; through npm (npm → `sh -c` → the wrapper); or, like a
 * package runner that spawns the bin itself, through a launcher (under npm's environment) whose own
 * parent exits once the server is up.
 */
type Route = "node bin/proving.mjs" | "npm exec proving" | "a launcher whose parent exits";

const LAUNCHER = path.join(project, "launcher.cjs");
fs.writeFileSync(
  LAUNCHER,
  `const { spawn } = require("node:child_process");
require("node:fs").writeFileSync(process.env.LAUNCH_PIDFILE, String(process.pid));
const c = spawn(process.execPath, [process.env.LAUNCH_BIN, ...JSON.parse(process.env.LAUNCH_ARGS)], { stdio: "inherit" });
c.on("exit", () => process.exit(0));
`,
);

interface Served {
  marker: string;
  port: number;
  started: ReturnType<typeof spawn>;
  pidFile: string;
}

async function startServe(route: Route): Promise<Served> {
  const marker = `lifetime-${crypto.randomUUID()}`;
  const args = ["serve", "--world", "device-support@1", "--host", "127.0.0.1", "--port", "0", "--json"];
  args.push("--token", marker, "--heartbeat-s", "0");
  // a child of `node --test` must not report to the parent test runner; NODE_OPTIONS is left to the wrapper
  const { NODE_TEST_CONTEXT: _, NODE_OPTIONS: __, ...env } = process.env;
  const pidFile = path.join(project, `${marker}.pid`);
  const stdio: ["ignore", "pipe", "pipe"] = ["ignore", "pipe", "pipe"];
  const started =
    route === "node bin/proving.mjs"
      ? spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env, stdio })
      : route === "npm exec proving"
        ? spawn("npm", ["exec", "--offline", "--no", "--", "proving", ...args], { cwd: project, env, stdio })
        : // the shell exits once the test writes `${pidFile}.go` (after the server is up)
          spawn(
            "sh",
            [
              "-c",
              '"$0" "$1" & while [ ! -e "$2" ]; do sleep 0.1; done',
              process.execPath,
              LAUNCHER,
              `${pidFile}.go`,
            ],
            {
              cwd: REPO_ROOT,
              env: {
                ...env,
                npm_lifecycle_event: "npx",
                LAUNCH_BIN: BIN,
                LAUNCH_ARGS: JSON.stringify(args),
                LAUNCH_PIDFILE: pidFile,
              },
              stdio,
            },
          );
  let stdout = "";
  let stderr = "";
  started.stdout?.on("data", (d) => {
    stdout += d;
  });
  started.stderr?.on("data", (d) => {
    stderr += d;
  });
  for (let i = 0; i < 600 && !stdout.includes("\n"); i++) await sleep(50);
  assert.ok(stdout.includes("\n"), `serve printed its address (stderr: ${stderr})`);
  const { url } = JSON.parse(stdout.split("\n")[0]) as { url: string };
  const port = Number(new URL(url).port);
  assert.ok(await portOpen(port), "the server listens");
  assert.ok(pidsWith(marker).length >= 2, "the wrapper runs the CLI in a child");
  return { marker, port, started, pidFile };
}

/** Waits (up to 10 s) for the port to close and every process of the server to end. */
async function assertGone({ marker, port }: Served, what: string): Promise<void> {
  let left = pidsWith(marker);
  let open = true;
  for (let i = 0; i < 200 && (left.length > 0 || open); i++) {
    await sleep(50);
    left = pidsWith(marker);
    open = await portOpen(port);
  }
  assert.equal(open, false, `the port is closed after ${what}`);
  assert.deepEqual(left, [], `no process remains after ${what}`);
}

function cleanUp({ marker, started, pidFile }: Served): void {
  started.kill("SIGKILL");
  const launcher = fs.existsSync(pidFile) ? [Number(fs.readFileSync(pidFile, "utf8"))] : [];
  for (const pid of [...launcher, ...pidsWith(marker)]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

async function killedServe(route: Route, signal: NodeJS.Signals) {
  const served = await startServe(route);
  try {
    assert.ok(served.started.pid);
    process.kill(served.started.pid, signal);
    await assertGone(served, `${signal} to ${route}`);
  } finally {
    cleanUp(served);
  }
}

for (const signal of ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGKILL"] as const) {
  test(`${signal} to \`node bin/proving.mjs serve\` stops the server and leaves no process`, () =>
    killedServe("node bin/proving.mjs", signal));
}

// (SIGINT by pid to npm alone reaches only its `sh -c`, which waits on: nothing ends, nothing is orphaned)
for (const signal of ["SIGTERM", "SIGKILL"] as const) {
  // after SIGKILL, npm's shell lives on: the wrapper sees npm gone through /proc (Linux)
  const skip = signal === "SIGKILL" && !fs.existsSync("/proc/self/stat") && "needs /proc";
  test(`${signal} to \`npm exec proving serve\` (npx) stops the server and leaves no process`, { skip }, () =>
    killedServe("npm exec proving", signal),
  );
}

test("under npm's environment, a launcher's parent going away is no reason to stop; the launcher's is", {
  skip: !fs.existsSync("/proc/self/stat") && "needs /proc",
}, async () => {
  const served = await startServe("a launcher whose parent exits");
  try {
    const shellExited = new Promise((resolve) => served.started.once("exit", resolve));
    fs.writeFileSync(`${served.pidFile}.go`, "");
    await shellExited;
    await sleep(1500); // the launcher's parent (sh) is gone; the wrapper checks every 250 ms
    assert.ok(await portOpen(served.port), "the server still listens");
    const launcher = Number(fs.readFileSync(served.pidFile, "utf8"));
    process.kill(launcher, "SIGKILL");
    await assertGone(served, "SIGKILL to the launcher");
  } finally {
    cleanUp(served);
  }
});
