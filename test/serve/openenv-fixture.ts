/**
 * The OpenEnv-protocol test servers of test/serve/fixtures/openenv (stdlib Python): whether they can
 * run here, starting one on a free loopback port, and auditing one with `proving audit URL --json`.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { parseJson, REPO_ROOT, runCli } from "../support/cli.ts";

/** The guess server (`--defect none|leak|shortcut|reset`, `--typed`, `--no-mcp-route`, `--max-sessions N`). */
export const GUESS_SERVER = path.join(REPO_ROOT, "test/serve/fixtures/openenv/guess_server.py");

export { skipWithoutPython } from "../support/python.ts";

/**
 * Starts a fixture server on a free loopback port (it binds port 0 and prints `listening on URL`);
 * resolves its URL. The child joins `started`, for the caller to kill.
 */
export function startOpenEnvServer(started: ChildProcess[], script: string, args: string[]): Promise<string> {
  const child = spawn("python3", [script, "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  started.push(child);
  const what = `${path.basename(script)} ${args.join(" ")}`;
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${out}`)), 30_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}): ${out}`));
    });
  });
}

/** One check of `proving audit --json`. */
export interface AuditFindingJson {
  id: string;
  status: "passed" | "failed" | "not_checkable";
  evidence: string[];
}

/** `proving audit URL --json --fuzz 30` (the real CLI): its exit code (1 when a check failed) and findings by id. */
export async function auditServer(
  url: string,
): Promise<{ code: number; findings: Record<string, AuditFindingJson> }> {
  const r = await runCli(["audit", url, "--json", "--fuzz", "30"]);
  const report = parseJson<{ ok: boolean; findings: AuditFindingJson[] }>(r);
  assert.equal(r.code, report.ok ? 0 : 1, r.stderr);
  return { code: r.code, findings: Object.fromEntries(report.findings.map((f) => [f.id, f])) };
}
