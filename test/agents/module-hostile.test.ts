/**
 * A hostile module agent (issue 27) tries to read the store, the checkout, the runner's command line
 * and secrets in its environment; to write files, spawn a process, start a worker, open a socket,
 * allocate 2 GiB of Buffers and kill the runner. Every attempt fails (the socket only where its
 * process runs under bubblewrap: Node's permission model has no network rule; CI has bubblewrap),
 * and its trial is recorded as the agent's, with the run going on.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { findBwrap } from "../../src/agents/cmd/sandbox.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { REPO_ROOT } from "../support/cli.ts";

const bwrap = findBwrap(process.env.PATH);

test("a hostile module agent can only act through tools: every other reach fails, its trial is recorded", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pg-hostile-"));
  const server = net.createServer((s) => s.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const agentDir = path.join(root, "agent");
    fs.mkdirSync(agentDir);
    fs.copyFileSync(
      path.join(import.meta.dirname, "fixtures", "attacker", "attacker.mjs"),
      path.join(agentDir, "attacker.mjs"),
    );
    const store = path.join(root, "store", "proving.db");
    fs.mkdirSync(path.dirname(store));
    fs.writeFileSync(store, "the store");
    fs.writeFileSync(
      path.join(agentDir, "targets.json"),
      JSON.stringify({
        store,
        checkoutFile: path.join(REPO_ROOT, "package.json"),
        port: (server.address() as net.AddressInfo).port,
      }),
    );
    const gym = defaultGym({
      env: {
        PATH: process.env.PATH,
        OPENAI_API_KEY: "sk-test-secret",
        DATABASE_URL: "postgres://u:secret@127.0.0.1/db",
        PROVING_STORE: store,
        ...(process.env.CI ? { CI: process.env.CI } : {}),
      },
    });
    const records: TrialRecord[] = [];
    const config = parseExperiment({
      worlds: ["device-support@1"],
      families: ["approved-replacement"],
      difficulties: [1],
      trials: 1,
      agents: ["./agent/attacker.mjs"],
      budget: { maxSteps: 1, wallTimeoutMs: 60_000 },
    });
    const result = await runExperiment(config, {
      ...gym.runOptions(),
      cwd: root,
      onTrial: (r) => records.push(r),
    });
    assert.equal(result.trials.length, 1);
    const record = records[0];
    assert.ok(record && record.outcome !== "infra_error" && record.outcome !== "missing", record?.reason);
    assert.equal(record.spec.agent.config?.sandbox, bwrap ? "bwrap" : "permission");
    const found = JSON.parse(String(record.steps[0]?.action.args.reason)) as Record<string, unknown>;
    assert.deepEqual(found.env, [], "no secret reached the agent's environment");
    for (const key of [
      "readStore",
      "readCheckout",
      "readRunnerCmdline",
      "writeOwnDir",
      "writeTmp",
      "spawn",
      "worker",
      "buffers",
      "kill",
    ])
      assert.match(String(found[key]), /^refused/, `${key}: ${found[key]}`);
    if (bwrap) assert.match(String(found.socket), /^refused/, `socket: ${found.socket}`);
    assert.equal(fs.existsSync(path.join(agentDir, "pwned")), false);
  } finally {
    server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
