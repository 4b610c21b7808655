/** Spawns the real CLI (`node bin/proving.mjs ...`) as a child process that a test can kill. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const BIN = fileURLToPath(new URL("../../../bin/proving.mjs", import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Child {
  process: ChildProcess;
  exited: Promise<Exit>;
}

/** Starts `proving ...args` from the repository root. */
export function startCli(args: string[], env: Record<string, string> = {}): Child {
  // a child of `node --test` must not report to the parent test runner
  const { NODE_TEST_CONTEXT: _, ...base } = process.env;
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO,
    env: { ...base, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += d;
  });
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  const exited = new Promise<Exit>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { process: child, exited };
}

/** Runs `proving ...args` to the end. */
export function runCliToEnd(args: string[], env: Record<string, string> = {}): Promise<Exit> {
  return startCli(args, env).exited;
}
