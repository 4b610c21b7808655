import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { startFakeLlmServer } from "../../src/agents/llm/fake/index.ts";
import type { ResolvedAgent } from "../../src/agents/resolve.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { Bm25Index } from "../../src/learn/bm25.ts";
import { contextSkillsAgent } from "../../src/learn/context-skills-agent.ts";
import { directivesOfText, resolvedDemoAgent } from "../../src/learn/demo-directives-agent.ts";
import { providerEmbedder } from "../../src/learn/embedder.ts";
import { retrieveByVector, retrieveSkills, withEmbeddingIndex } from "../../src/learn/retrieval.ts";
import { induceRuleSkills } from "../../src/learn/rule-inducer.ts";
import type { Skill } from "../../src/learn/skill.ts";
import {
  bm25Bank,
  loadSkillBank,
  readSkillBank,
  type SkillBank,
  saveSkillBank,
} from "../../src/learn/skill-bank.ts";
import { skillSource } from "../../src/learn/skill-source.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";

const gym = defaultGym();

/** The plumbing demo, with the skills of `bank` (k per task) in its task's context.skills. */
const demo = (id = "demo", bank?: SkillBank, k = 3): ResolvedAgent =>
  contextSkillsAgent(resolvedDemoAgent(), id, bank ? skillSource(bank, k) : undefined);

async function run(families: string[], agent: ResolvedAgent, seed = 0) {
  const records: TrialRecord[] = [];
  const config = parseExperiment({
    worlds: ["device-support@1"],
    families,
    difficulties: [1],
    trials: 2,
    seed,
    agents: [agent.ref.id],
  });
  const result = await runExperiment(config, {
    ...gym.runOptions(),
    agents: [agent],
    concurrency: 2,
    onTrial: (r) => records.push(r),
  });
  return { rows: result.trials, records: records.sort((a, b) => a.spec.index - b.spec.index) };
}

test("BM25 scores as the formula says (k1 1.2, b 0.75) and ranks the matching document first", () => {
  const index = new Bm25Index(["apple banana", "banana cherry cherry"]);
  const hits = index.search("cherry");
  assert.equal(hits.length, 1);
  assert.equal(hits[0].index, 1);
  const idf = Math.log(1 + (2 - 1 + 0.5) / (1 + 0.5));
  const norm = 1.2 * (1 - 0.75 + (0.75 * 3) / 2.5);
  assert.ok(Math.abs(hits[0].score - (idf * 2 * 2.2) / (2 + norm)) < 1e-12);
  // a term in every document has the lowest idf; "banana" ranks the shorter document first
  const both = index.search("banana");
  assert.deepEqual(
    both.map((h) => h.index),
    [0, 1],
  );
  assert.deepEqual(index.search("durian"), []);
});

const pattern = (s: Skill) => s.extra?.pattern;

test("the rule inducer learns from the no-skill demo's failures, with provenance and support", async () => {
  const { records } = await run(["lost-reply", "needs-approval", "approved-replacement"], demo());
  const skills = induceRuleSkills(records);
  const kinds = skills.map(pattern).sort();
  assert.deepEqual(kinds, ["approval_first", "reconcile_after_timeout"]);
  const reconcile = skills.find((s) => pattern(s) === "reconcile_after_timeout");
  assert.ok(reconcile);
  assert.match(reconcile.text, /call find_replacements with the same idempotency_key/);
  const supporting = records.filter((r) => r.verdict?.violations.some((v) => v.code === "duplicate_write"));
  assert.deepEqual(reconcile.provenance.trials.sort(), supporting.map((r) => r.spec.id).sort());
  assert.deepEqual(reconcile.provenance.variants, ["base"]);
  assert.deepEqual(reconcile.provenance.families, ["lost-reply"]);
  assert.equal(reconcile.provenance.failures, supporting.length);
  // support below the minimum: nothing
  assert.deepEqual(induceRuleSkills(records.slice(0, 1), { minSupport: 2 }), []);
  // infrastructure errors are never learned from
  const infra = records.map((r) => ({
    ...r,
    outcome: "infra_error" as const,
    fault: "infrastructure" as const,
  }));
  assert.deepEqual(induceRuleSkills(infra, { minSupport: 1 }), []);
  // nor from the held-out split
  const heldout = records.map((r) => ({ ...r, task: { ...r.task, split: "heldout" as const } }));
  assert.deepEqual(induceRuleSkills(heldout, { minSupport: 1 }), []);
});

test("the demo's behaviour depends on the skill TEXT in its context; the trial records which skills", async () => {
  const none = await run(["lost-reply"], demo("none"));
  assert.ok(none.rows.every((t) => t.outcome === "violated" && t.violations.includes("duplicate_write")));
  const skills = induceRuleSkills(none.records);
  const bank = bm25Bank("lost-reply", skills, []);
  const taught = await run(["lost-reply"], demo("taught", bank));
  assert.ok(taught.rows.every((t) => t.outcome === "passed"));
  const first = taught.records[0].steps[0];
  assert.deepEqual(first.meta?.skills, [skills[0].id]);
  // after the timeout it looked the write up by its key instead of writing under a new key
  const tools = taught.records[0].steps.map((s) => s.action.tool);
  assert.ok(tools.includes("find_replacements"));
  // k = 0 retrieves nothing, and the habit is back
  const blind = await run(["lost-reply"], demo("blind", bank, 0));
  assert.ok(blind.rows.every((t) => t.outcome === "violated"));
});

test("nonsense skill text gives the demo no gain, whatever the skill's other fields say", async () => {
  const families = ["lost-reply", "needs-approval", "approval-revised", "unverifiable"];
  const none = await run(families, demo("none"));
  const induced = induceRuleSkills(none.records, { minSupport: 1 });
  assert.ok(induced.length >= 2);
  // the same skills (ids, titles, provenance, patterns), their text replaced by nonsense
  const nonsense = induced.map((s, i) => ({
    ...s,
    text: `Purple ${i} bananas hum at create_replacement find_replacements approval conditions dawn.`,
  }));
  assert.deepEqual(directivesOfText(nonsense.map((s) => s.text)), {
    approvalFirst: false,
    followConditions: false,
    confirmBeforeClaim: false,
  });
  const taught = await run(families, demo("nonsense", bm25Bank("nonsense", nonsense, [])));
  assert.deepEqual(
    taught.rows.map((t) => t.outcome),
    none.rows.map((t) => t.outcome),
  );
  assert.ok(taught.records[0].steps[0].meta?.skills, "the nonsense did reach the agent");
  // the real texts do change the outcomes on the same tasks
  const real = await run(families, demo("real", bm25Bank("real", induced, [])));
  assert.ok(
    real.rows.filter((t) => t.outcome === "passed").length >
      none.rows.filter((t) => t.outcome === "passed").length,
  );
});

test("a skill bank saves and loads; a malformed one is a config error", async () => {
  const { records } = await run(["lost-reply"], demo());
  const bank = bm25Bank("b", induceRuleSkills(records), [{ inducer: "rule@1", trials: 2, skills: 1 }]);
  assert.equal(bank.index.kind, "bm25");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-bank-"));
  try {
    const file = path.join(dir, "bank.json");
    saveSkillBank(file, bank);
    assert.deepEqual(loadSkillBank(file), bank);
    assert.throws(
      () => readSkillBank({ ...bank, schemaVersion: 2 }),
      (e: unknown) => e instanceof ProvingError && e.code === "bad_skill_bank",
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("embeddings through the provider layer (fake provider); a bank built with one model refuses another", async () => {
  const server = await startFakeLlmServer({ model: () => ({ text: "unused" }) });
  try {
    const { records } = await run(["lost-reply", "needs-approval"], demo());
    const base = bm25Bank("e", induceRuleSkills(records), []);
    const small = providerEmbedder({
      model: "embed-small",
      baseURL: server.baseURL,
      apiKey: "k",
      dimensions: 32,
    });
    const bank = await withEmbeddingIndex(base, small);
    assert.equal(bank.index.kind, "embedding");
    assert.equal(bank.index.model, "openai:embed-small");
    assert.equal(bank.index.dimensions, 32);
    const hits = await retrieveSkills(
      bank,
      "create_replacement answered timeout: find_replacements idempotency_key",
      {
        embedder: small,
        k: 1,
      },
    );
    assert.equal(pattern(hits[0].skill), "reconcile_after_timeout");
    const refused = (e: unknown) =>
      e instanceof ProvingError && e.code === "embedding_model_mismatch" && e.fault === "config";
    const other = providerEmbedder({
      model: "embed-large",
      baseURL: server.baseURL,
      apiKey: "k",
      dimensions: 32,
    });
    await assert.rejects(retrieveSkills(bank, "timeout", { embedder: other }), refused);
    await assert.rejects(retrieveSkills(bank, "timeout"), refused);
    // same model name, other dimensions: refused too
    const [v] = await providerEmbedder({
      model: "embed-small",
      baseURL: server.baseURL,
      apiKey: "k",
      dimensions: 16,
    }).embed(["timeout"]);
    assert.throws(() => retrieveByVector(bank, v, "openai:embed-small"), refused);
  } finally {
    await server.close();
  }
});
