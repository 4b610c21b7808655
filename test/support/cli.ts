/** Runs the real CLI (`node bin/proving.mjs ...`) in a child process, for end-to-end tests. */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = fileURLToPath(new URL("../../bin/proving.mjs", import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `proving ...args` from the repository root; never rejects (the exit code is in the result). */
export function runCli(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  // a child of `node --test` must not report to the parent test runner
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: opts.cwd ?? REPO_ROOT,
        env: { ...env, NO_COLOR: "1", ...opts.env },
        maxBuffer: 256 * 1024 * 1024,
        timeout: 300_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Parses stdout as one JSON document, with the output in the error when it is not. */
export function parseJson<T = unknown>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(
      `stdout is not one JSON document (exit ${r.code}):\n${r.stdout.slice(0, 2000)}\n--- stderr:\n${r.stderr.slice(0, 2000)}`,
    );
  }
}

/**
 * Starts `proving ...args` from source (`src/cli/main.ts` under tsx) as a long-lived child (a
 * `proving serve`), its stdout and stderr piped; the caller kills it.
 */
export function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  // a child of `node --test` must not report to the parent test runner
  const { NODE_TEST_CONTEXT: _, ...parent } = process.env;
  return spawn(process.execPath, ["--no-node-snapshot", "--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: REPO_ROOT,
    env: { ...parent, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}
