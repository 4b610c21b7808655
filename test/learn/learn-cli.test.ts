import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { startFakeLlmServer } from "../../src/agents/llm/fake/index.ts";
import type { LearnResult } from "../../src/learn/learn-result.ts";
import { loadSkillBank } from "../../src/learn/skill-bank.ts";
import { parseJson, runCli } from "../support/cli.ts";

test("proving learn --json: three arms, the banks and the report's learning section", async () => {
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
      "--family",
      "approved-replacement",
      "--family",
      "lost-reply",
      "--heldout",
      "delayed-receipt",
      "--induction-trials",
      "2",
      "--trials",
      "4",
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
    assert.equal(out.induction.original.trials, 2);
    assert.equal(out.induction.variants.trials, 2);
    const [unmodified] = out.evaluation.sets;
    assert.ok(unmodified.comparisons.variantsVsNone.mcnemar.p < 0.05);
    assert.ok(unmodified.arms.variants.passed > unmodified.arms.none.passed);
    const bank = loadSkillBank(path.join(out.files.dir, "bank-variants.json"));
    assert.deepEqual(
      bank.skills.map((s) => s.id),
      out.induction.variants.skills.map((s) => s.id),
    );
    assert.equal(bank.index.model, "bm25@1");
    const html = fs.readFileSync(report, "utf8");
    assert.match(html, /<section id="learning">/);
    for (const arm of ["none", "original", "variants"]) assert.match(html, new RegExp(`data-arm="${arm}"`));
    // the runs are recorded experiments: the evaluation exports as training data
    const exp = await runCli(["export", "cli-eval", "--format", "rollouts", "--store", store]);
    assert.equal(exp.code, 0, exp.stderr);
    assert.equal(exp.stdout.trim().split("\n").length, 3 * 3 * 2 * 4);
    const bad = await runCli([
      "learn",
      "--heldout",
      "lost-reply",
      "--family",
      "lost-reply",
      "--store",
      store,
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /bad_flag/);
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
      const embedded = loadSkillBank(path.join(dirOf, "bank-variants.json"));
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
