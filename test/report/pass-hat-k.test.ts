/**
 * pass^k (tau-bench: all k repeats of a task pass) in the summary, `proving report --json` and the
 * HTML report, for k = 1..repeats when tasks were repeated; absent without repeats.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Outcome } from "../../src/core/contracts.ts";
import type { TrialSummary } from "../../src/core/trial-summary.ts";
import { summarizeExperiment } from "../../src/report/summary.ts";
import { runCli } from "../support/cli.ts";
import { tempDir } from "./fixtures.ts";

function row(agent: string, seed: number, repeat: number, outcome: Outcome): TrialSummary {
  return {
    trialId: `${agent}-${seed}-${repeat}`,
    experimentId: "x",
    index: 0,
    world: "device-support@1",
    family: "lost-reply",
    difficulty: 1,
    agent,
    seed,
    repeat,
    outcome,
    reason: "",
    passed: outcome === "passed" ? true : outcome === "failed" ? false : null,
    score: null,
    violations: [],
    steps: 0,
    stats: { steps: 0, virtualSeconds: 0, wallMs: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 },
    trajectoryHash: "",
    startedAt: "",
    finishedAt: "",
  };
}

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} vs ${b}`);

test("pass^k per task from its repeats, C(c,k)/C(n,k), averaged over tasks; per agent; intervals around it", () => {
  const outcomes: Record<number, Outcome[]> = {
    1: ["passed", "passed", "failed"],
    2: ["passed", "passed", "passed"],
    3: ["failed", "infra_error", "missing"],
  };
  const rows = [
    ...Object.entries(outcomes).flatMap(([seed, list]) => list.map((o, i) => row("a", Number(seed), i, o))),
    ...[1, 2, 3].flatMap((seed) => [0, 1, 2].map((i) => row("b", seed, i, "passed"))),
  ];
  const s = summarizeExperiment(rows);
  const a = s.pass_hat_k_by_agent?.a;
  assert.ok(a && s.pass_hat_k);
  assert.equal(a.repeats, 3);
  assert.equal(a.tasks, 3);
  assert.deepEqual(
    a.by_k.map((p) => p.k),
    [1, 2, 3],
  );
  // task 1: c=2 of 3, task 2: 3 of 3, task 3: none (infra and missing repeats count as not passed)
  close(a.by_k[0].estimate, (2 / 3 + 1 + 0) / 3);
  close(a.by_k[1].estimate, (1 / 3 + 1 + 0) / 3);
  close(a.by_k[2].estimate, (0 + 1 + 0) / 3);
  assert.ok(a.by_k.every((p) => p.ci[0] <= p.estimate && p.estimate <= p.ci[1]));
  // pass^k never rises with k: reliability is harder than one pass
  assert.ok(a.by_k[0].estimate >= a.by_k[1].estimate && a.by_k[1].estimate >= a.by_k[2].estimate);
  assert.deepEqual(
    s.pass_hat_k_by_agent?.b.by_k.map((p) => [p.estimate, p.ci]),
    [
      [1, [1, 1]],
      [1, [1, 1]],
      [1, [1, 1]],
    ],
  );
  assert.equal(s.pass_hat_k.tasks, 6);
  close(s.pass_hat_k.by_k[2].estimate, (1 / 3 + 1) / 2);
  // no repeats: no pass^k
  const single = summarizeExperiment(rows.filter((r) => r.repeat === 0));
  assert.equal(single.pass_hat_k, undefined);
  assert.equal(single.pass_hat_k_by_agent, undefined);
});

test("proving run --repeats 2: report --json and the HTML report carry pass^1 and pass^2 (the summary test: none without repeats)", async () => {
  const dir = tempDir("passk");
  try {
    const store = path.join(dir, "p.db");
    const flags = ["--world", "device-support", "--family", "lost-reply", "--difficulty", "1"];
    const agents = ["--agent", "cautious", "--agent", "new-key-retry", "--trials", "1", "--no-progress"];
    const ran = await runCli([
      "run",
      ...flags,
      ...agents,
      "--repeats",
      "2",
      "--store",
      store,
      "--no-report",
      "--id",
      "rep",
    ]);
    assert.equal(ran.code, 0, ran.stderr);
    const html = path.join(dir, "rep.html");
    const r = await runCli(["report", "rep", "--store", store, "--json", "--html", html]);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.pass_hat_k.repeats, 2);
    assert.equal(doc.pass_hat_k.tasks, 2);
    assert.deepEqual(
      doc.pass_hat_k.by_k.map((p: { k: number }) => p.k),
      [1, 2],
    );
    // scripted agents are deterministic: a task's repeats agree, so pass^2 = pass^1 = the pass rate
    assert.equal(doc.pass_hat_k.by_k[0].estimate, doc.pass_rate.estimate);
    assert.equal(doc.pass_hat_k.by_k[1].estimate, doc.pass_rate.estimate);
    assert.equal(doc.pass_hat_k_by_agent.cautious.by_k[1].estimate, 1);
    assert.equal(doc.pass_hat_k_by_agent["new-key-retry"].by_k[1].estimate, 0);
    const text = await runCli(["report", "rep", "--store", store]);
    assert.match(
      text.stdout,
      /pass\^k \(all k of 2 repeats of a task pass, 2 tasks\): pass\^1 50\.0% \[.*\], pass\^2 50\.0%/,
    );
    const page = fs.readFileSync(html, "utf8");
    assert.match(page, /<div id="pass-hat-k">/);
    assert.match(page, /<td class="n" data-pass-hat-k="2">/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
