import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { startFakeLlmServer } from "../../src/agents/llm/fake/index.ts";
import type { LearnResult } from "../../src/learn/learn-result.ts";
import { loadSkillBank } from "../../src/learn/skill-bank.ts";
import { parseJson, runCli } from "../support/cli.ts";

test("proving learn --json: the arms per induction seed, the banks, the report's learning section, what it measures", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-learn-"));
  try {
    const store = path.join(dir, "p.db");
    const report = path.join(dir, "learn.html");
    const variant = JSON.stringify({
      world: "device-support@1",
      layers: [{ id: "rule.lose-reply-after-commit@1", params: { tool: "create_replacement" } }],
    });
    const args = [
      "learn",
      "--id",
      "cli",
      "--agent",
      "demo-directives",
      "--family",
      "approved-replacement",
      "--family",
      "lost-reply",
      "--heldout",
      "delayed-receipt",
      "--induction-trials",
      "2",
      "--induction-seeds",
      "1,2",
      "--trials",
      "2",
      "--variant",
      variant,
      "--store",
      store,
      "--report",
      report,
      "--json",
    ];
    const r = await runCli(args);
    assert.equal(r.code, 0, r.stderr);
    const out = parseJson<LearnResult & { files: { dir: string; report: string } }>(r);
    assert.equal(out.schemaVersion, 2);
    assert.deepEqual(out.agent, { spec: "demo-directives", channel: "demo" });
    assert.deepEqual(
      out.induction.variants.map((a) => [a.seed, a.trials]),
      [
        [1, 2],
        [2, 2],
      ],
    );
    const [unmodified] = out.evaluation.sets;
    assert.equal(unmodified.comparisons.variantsVsNone.difference.clusters, 2);
    assert.ok(unmodified.arms.variants.passed > 2 * unmodified.arms.none.passed);
    assert.match(out.doesNotMeasure.join(" "), /proves nothing about transfer/);
    for (const seed of [1, 2]) {
      const bank = loadSkillBank(path.join(out.files.dir, `bank-variants-s${seed}.json`));
      assert.deepEqual(
        bank.skills.map((s) => s.id),
        out.induction.variants[seed - 1].skills.map((s) => s.id),
      );
      assert.equal(bank.index.model, "bm25@1");
    }
    const html = fs.readFileSync(report, "utf8");
    assert.match(html, /<section id="learning">/);
    for (const arm of ["none", "original", "variants"]) assert.match(html, new RegExp(`data-arm="${arm}"`));
    assert.match(html, /proves nothing about transfer/);
    // the runs are recorded experiments: the evaluation exports as training data (none + 2 arms × 2 seeds)
    const exp = await runCli(["export", "cli-eval", "--format", "rollouts", "--store", store]);
    assert.equal(exp.code, 0, exp.stderr);
    assert.equal(exp.stdout.trim().split("\n").length, 5 * 3 * 2 * 2);
    // --embeddings: the saved banks carry the embedding model and dimensions (fake provider's endpoint)
    const server = await startFakeLlmServer({ model: () => ({ text: "unused" }) });
    try {
      const e = await runCli(
        [
          ...args.slice(0, 2),
          "cli-embed",
          ...args.slice(3, -5),
          "--store",
          store,
          "--no-report",
          "--embeddings",
          "embed-x",
          "--dimensions",
          "24",
          "--json",
        ],
        { env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" } },
      );
      assert.equal(e.code, 0, e.stderr);
      const dirOf = parseJson<{ files: { dir: string } }>(e).files.dir;
      const embedded = loadSkillBank(path.join(dirOf, "bank-variants-s1.json"));
      assert.equal(embedded.index.kind, "embedding");
      assert.equal(embedded.index.model, "openai:embed-x");
      assert.equal(embedded.index.dimensions, 24);
    } finally {
      await server.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("proving learn needs --agent; bad flags are config errors", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-learn-bad-"));
  try {
    const store = path.join(dir, "p.db");
    for (const bad of [
      ["learn", "--store", store], // no --agent
      [
        "learn",
        "--agent",
        "demo-directives",
        "--heldout",
        "lost-reply",
        "--family",
        "lost-reply",
        "--store",
        store,
      ],
      ["learn", "--agent", "demo-directives", "--world", "order-ops@1", "--store", store],
      ["learn", "--agent", "demo-directives", "--induction-seeds", "1,x", "--store", store],
    ]) {
      const b = await runCli(bad);
      assert.equal(b.code, 2, `${bad.join(" ")}: ${b.stderr}`);
      assert.match(b.stderr, /bad_flag/);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("proving learn --world order-ops@1 runs with any agent the gym resolves, and says what it measures", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-learn-oo-"));
  try {
    const r = await runCli([
      "learn",
      "--world",
      "order-ops@1",
      "--agent",
      "new-key-retry",
      "--id",
      "oo",
      "--induction-trials",
      "4",
      "--difficulty",
      "1",
      "--trials",
      "1",
      "--store",
      path.join(dir, "p.db"),
      "--no-report",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^learn oo on order-ops@1: agent new-key-retry \(skills via context\)/);
    assert.match(r.stdout, /induction seeds 1, 2, 3/);
    assert.match(r.stdout, /held-out families: cancel-order/);
    assert.match(r.stdout, /bootstrap over families/);
    assert.match(r.stdout, /does not measure:\n {2}- what the skills are worth/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
