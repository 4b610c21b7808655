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

type Route = "node bin/proving.mjs" | "npm exec proving";

async function killedServe(route: Route, signal: NodeJS.Signals) {
  const marker = `lifetime-${crypto.randomUUID()}`;
  const args = ["serve", "--world", "device-support@1", "--host", "127.0.0.1", "--port", "0", "--json"];
  args.push("--token", marker, "--heartbeat-s", "0");
  // a child of `node --test` must not report to the parent test runner; NODE_OPTIONS is left to the wrapper
  const { NODE_TEST_CONTEXT: _, NODE_OPTIONS: __, ...env } = process.env;
  const started =
    route === "node bin/proving.mjs"
      ? spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
      : spawn("npm", ["exec", "--offline", "--no", "--", "proving", ...args], {
          cwd: project,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
  let stdout = "";
  let stderr = "";
  started.stdout?.on("data", (d) => {
    stdout += d;
  });
  started.stderr?.on("data", (d) => {
    stderr += d;
  });
  try {
    for (let i = 0; i < 600 && !stdout.includes("\n"); i++) await sleep(50);
    assert.ok(stdout.includes("\n"), `serve printed its address (stderr: ${stderr})`);
    const { url } = JSON.parse(stdout.split("\n")[0]) as { url: string };
    const port = Number(new URL(url).port);
    assert.ok(await portOpen(port), "the server listens");
    assert.ok(pidsWith(marker).length >= 2, "the wrapper runs the CLI in a child");

    assert.ok(started.pid);
    process.kill(started.pid, signal);
    let left = pidsWith(marker);
    let open = true;
    for (let i = 0; i < 200 && (left.length > 0 || open); i++) {
      await sleep(50);
      left = pidsWith(marker);
      open = await portOpen(port);
    }
    assert.equal(open, false, `the port is closed after ${signal} to ${route}`);
    assert.deepEqual(left, [], `no process remains after ${signal} to ${route}`);
  } finally {
    started.kill("SIGKILL");
    for (const pid of pidsWith(marker)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
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
