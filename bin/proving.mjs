#!/usr/bin/env node
// The `proving` CLI. An installed package has no src/ and runs the built JavaScript in dist/ (tsx
// loads only if an agent module is a .ts file). In a checkout (src/ beside bin/) it runs the
// TypeScript source through tsx instead, so `npx proving`, `node bin/proving.mjs` and the tests'
// CLI helper never run a stale build; `node dist/cli/main.js` runs the build (`npm run build`).
import { spawn } from "node:child_process";
import fs from "node:fs";

// isolated-vm (the code-repair sandbox) wants V8 started without Node's startup snapshot, a flag
// only a starting process can take. Without `--no-node-snapshot` on this process, run the CLI again
// in a child that has it (in NODE_OPTIONS, so its own children have it too). The wrapper forwards
// every signal that ends a process to the child and ends as the child did; the child ends when the
// wrapper does, even by SIGKILL (its IPC channel closes).
const FLAG = "--no-node-snapshot";
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP", ...(process.platform === "win32" ? [] : ["SIGQUIT"])];
const hasFlag =
  process.execArgv.includes(FLAG) || (process.env.NODE_OPTIONS ?? "").split(/\s+/).includes(FLAG);
const wrapped = process.env.PROVING_WRAPPED === "1" && process.channel !== undefined;

/** `{comm, ppid}` of a process (Linux: /proc), or undefined where that cannot be read. */
function processInfo(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    return { comm, ppid: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) };
  } catch {
    return undefined;
  }
}

const SHELLS = new Set(["sh", "dash", "bash", "ash", "zsh", "ksh"]);

// Started by npm (`npx proving`, `npm exec`, an npm script), this process runs under `sh -c`, and
// npm passes SIGINT/SIGTERM to that shell only, which dies without passing them on (and SIGKILL
// reaches npm alone): killing npm by its pid would leave this process running, orphaned. So under
// npm, end (by SIGTERM, the way `proving serve` shuts down) once the process that started it is
// gone: this process's parent changes, or that of a shell between it and npm. (npm's own parent
// going away is no reason: `nohup npx proving serve &` outlives its terminal.)
function endWithNpm(stop) {
  if (process.env.npm_lifecycle_event === undefined) return;
  const watched = [{ pid: process.pid, parent: process.ppid }];
  let pid = process.ppid;
  let up = processInfo(pid);
  while (up && SHELLS.has(up.comm) && watched.length < 4) {
    watched.push({ pid, parent: up.ppid });
    pid = up.ppid;
    up = processInfo(pid);
  }
  const parentOf = (pid) => (pid === process.pid ? process.ppid : processInfo(pid)?.ppid);
  const timer = setInterval(() => {
    if (watched.some((w) => parentOf(w.pid) !== w.parent)) {
      clearInterval(timer);
      stop();
    }
  }, 250);
  timer.unref();
}

if (!hasFlag) {
  const env = {
    ...process.env,
    PROVING_WRAPPED: "1",
    NODE_OPTIONS: `${FLAG} ${process.env.NODE_OPTIONS ?? ""}`.trim(),
  };
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1], ...process.argv.slice(2)], {
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    env,
  });
  const forward = (sig) => child.kill(sig);
  for (const sig of FORWARDED) process.on(sig, forward);
  endWithNpm(() => child.kill("SIGTERM"));
  child.on("exit", (code, signal) => {
    for (const sig of FORWARDED) process.off(sig, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
} else {
  if (wrapped) {
    // started by the wrapper above: end with it (the IPC channel closes when the parent dies)
    process.on("disconnect", () => process.exit(130));
    process.channel.unref();
  } else {
    endWithNpm(() => process.kill(process.pid, "SIGTERM"));
  }
  const source = new URL("../src/cli/main.ts", import.meta.url);
  if (fs.existsSync(source)) {
    const { register } = await import("tsx/esm/api");
    register();
    await import(source.href);
  } else {
    await import("../dist/cli/main.js");
  }
}
