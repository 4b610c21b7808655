/**
 * The terminal report says why trials ended in an error: the first few distinct reasons of the
 * `agent_error` (and `infra_error`) trials, with the error code and message, counted, most frequent
 * first. `run --json` keeps its shape.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { Outcome } from "../../src/core/contracts.ts";
import type { TrialSummary } from "../../src/core/trial-summary.ts";
import { summarizeExperiment } from "../../src/report/summary.ts";
import { renderTerminalReport } from "../../src/report/terminal.ts";
import { runCli } from "../support/cli.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-terminal-errors-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
function row(outcome: Outcome, reason: string): TrialSummary {
  const i = n++;
  return {
    trialId: `t${i}`,
    experimentId: "e",
    index: i,
    world: "device-support@1",
    family: "denied",
    difficulty: 1,
    agent: "a",
    seed: i,
    repeat: 0,
    outcome,
    reason,
    passed: null,
    score: null,
    violations: [],
    steps: 1,
    stats: { steps: 1, virtualSeconds: 0, wallMs: 1, tokensIn: 0, tokensOut: 0, costUsd: 0 },
    trajectoryHash: "",
    startedAt: "",
    finishedAt: "",
  };
}

test("the report counts the distinct reasons of agent_error and infra_error trials, most frequent first", () => {
  const rows = [
    row("agent_error", "agent threw: Cannot read properties of undefined (reading 'case_id')"),
    row("agent_error", "agent_bad_action: the agent returned a non-action"),
    row("agent_error", "agent threw: Cannot read properties of undefined (reading 'case_id')"),
    row("agent_error", "agent threw: Cannot read properties of undefined (reading 'case_id')"),
    row("agent_error", "agent_timeout: act took longer than 1000 ms"),
    row("agent_error", "agent_bad_action: the agent returned a non-action"),
    row("agent_error", "agent threw: once"),
    row("agent_error", "agent threw: twice"),
    row("infra_error", "provider_unavailable: 503 after 3 retries"),
    row("passed", "all checks passed"),
  ];
  const text = renderTerminalReport("e", summarizeExperiment(rows), { tty: false, trials: rows });
  const lines = text.split("\n");
  const at = lines.indexOf("Why trials ended agent_error");
  assert.ok(at > 0, text);
  assert.deepEqual(lines.slice(at + 1, at + 5), [
    "  3× agent threw: Cannot read properties of undefined (reading 'case_id')",
    "  2× agent_bad_action: the agent returned a non-action",
    "  1× agent_timeout: act took longer than 1000 ms",
    "  … 2 other reason(s) in 2 trial(s)",
  ]);
  const infra = lines.indexOf("Why trials ended infra_error");
  assert.ok(infra > at, text);
  assert.equal(lines[infra + 1], "  1× provider_unavailable: 503 after 3 retries");
  assert.ok(!text.includes("all checks passed"), "only error outcomes are explained");
});

test("without error trials, or without the rows, the report is as before", () => {
  const rows = [row("passed", "all checks passed"), row("failed", "failed checks: x (y)")];
  const summary = summarizeExperiment(rows);
  const plain = renderTerminalReport("e", summary, { tty: false });
  assert.equal(renderTerminalReport("e", summary, { tty: false, trials: rows }), plain);
  assert.ok(!plain.includes("Why trials ended"));
});

test("a long or multi-line reason is shown on one line, cut", () => {
  const rows = [row("agent_error", `agent threw: ${"x".repeat(500)}\n    at act (agent.mjs:3:9)`)];
  const text = renderTerminalReport("e", summarizeExperiment(rows), { tty: false, trials: rows });
  const line = text.split("\n").find((l) => l.startsWith("  1× agent threw:"));
  assert.ok(line && line.length < 220 && line.endsWith("…"), line);
});

test("`proving run` with an agent module that throws says why its trials ended agent_error; --json unchanged", async () => {
  const args = [
    "run",
    "--agent",
    "test/cli/fixtures/throws-in-act.mjs",
    "--family",
    "denied",
    "--trials",
    "2",
  ];
  const common = ["--no-progress", "--no-report"];
  const r = await runCli([...args, ...common, "--store", path.join(dir, "text.db")]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Why trials ended agent_error\n {2}\d+× agent threw in act\(\): policy crashed\n/);
  const j = await runCli([...args, ...common, "--json", "--store", path.join(dir, "json.db")]);
  assert.equal(j.code, 0, j.stderr);
  const doc = JSON.parse(j.stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(doc).sort(), [
    "experiment",
    "outcomes",
    "pass_rate",
    "planned",
    "trials",
    "violations",
  ]);
});
