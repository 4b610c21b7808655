/**
 * The CLI's start-up loads no store driver, queue, LLM SDK, sandbox or report renderer: each command
 * imports what it uses when it runs (`proving --help` and `proving worlds` need none of them). The
 * real CLI (`bin/proving.mjs`) runs in a child process whose module hooks record every package it
 * resolves (`loadedPackages`, as `test/package/lazy-imports.test.ts` uses it for the library).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { MCP_DEFAULT_WALL_TIMEOUT_MS } from "../../src/mcp/trial.ts";
import { isHeavy, loadedPackages } from "../package/loaded-packages.ts";
import { REPO_ROOT, runCli } from "../support/cli.ts";

/** What start-up must not load: the store's drivers, the queue, the AI SDK, the sandbox, MCP, the servers, the charts. */
const NOT_AT_STARTUP = [
  "better-sqlite3",
  "kysely",
  "pg",
  "bullmq",
  "ioredis",
  "ai",
  "@ai-sdk/*",
  "isolated-vm",
  "@modelcontextprotocol/sdk",
  "hono",
  "@hono/node-server",
  "ws",
  "vega",
  "vega-lite",
];

function cliLoads(args: string[], cwd = REPO_ROOT): Promise<string[]> {
  return loadedPackages({
    entry: `${REPO_ROOT}bin/proving.mjs`,
    cwd,
    argv: ["proving", ...args],
    // the flag the bin otherwise re-runs itself with (isolated-vm), so the CLI runs in this process
    nodeArgs: ["--no-node-snapshot"],
  });
}

for (const args of [
  ["--help"],
  ["worlds"],
  ["worlds", "--json"],
  ["serve", "--help"],
  ["run", "--help"],
  ["curriculum", "run", "--help"],
]) {
  test(`\`proving ${args.join(" ")}\` loads none of ${NOT_AT_STARTUP.join(", ")}`, async () => {
    const loaded = await cliLoads(args);
    assert.ok(loaded.includes("commander"), `the CLI ran: ${loaded.join(", ")}`);
    assert.deepEqual(
      loaded.filter((p) => isHeavy(p, NOT_AT_STARTUP)),
      [],
      `loaded: ${loaded.join(", ")}`,
    );
  });
}

test("a command that opens the store does load its driver (the probe sees it)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-startup-"));
  try {
    const loaded = await cliLoads(
      [
        "run",
        "--world",
        "device-support@1",
        "--agent",
        "cautious",
        "--difficulty",
        "1",
        "--trials",
        "1",
        "--store",
        path.join(dir, "s.db"),
        "--no-report",
        "--no-progress",
        "--json",
      ],
      dir,
    );
    assert.ok(loaded.includes("better-sqlite3") && loaded.includes("kysely"), loaded.join(", "));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("`proving mcp --help` states the trial module's default wall-clock budget", async () => {
  const r = await runCli(["mcp", "--help"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`wall-clock budget \\(default ${MCP_DEFAULT_WALL_TIMEOUT_MS / 1000}\\)`));
});
