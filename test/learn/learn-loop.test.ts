import assert from "node:assert/strict";
import { test } from "node:test";
import { firstUserText, policyModel, startFakeLlmServer } from "../../src/agents/llm/fake/index.ts";
import { createLlmAgent, defaultConfig } from "../../src/agents/llm/index.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { variantId } from "../../src/harness/variant.ts";
import { DEFAULT_LEARN_VARIANTS, type LearnOptions, runLearn } from "../../src/learn/learn-loop.ts";
import { LLM_INDUCER_SYSTEM, llmInducer } from "../../src/learn/llm-inducer.ts";
import { skillSource } from "../../src/learn/skill-source.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";

const small: LearnOptions = {
  id: "learn-test",
  trainFamilies: ["approved-replacement", "needs-approval", "lost-reply"],
  heldoutFamilies: ["delayed-receipt"],
  inductionTrials: 3,
  evalDifficulties: [1, 2],
  evalTrials: 4,
  concurrency: 2,
};

const offline = runLearn(small, { run: defaultGym().runOptions() });

test("skills induced from harnessed variants beat no skills on the unmodified world (paired, same tasks and seeds)", async () => {
  const { result, banks } = await offline;
  // matched sizes
  assert.equal(result.induction.original.trials, 3);
  assert.equal(result.induction.variants.trials, 3);
  const variant = variantId(defaultGym().harness.normalize(DEFAULT_LEARN_VARIANTS[0] as never));
  assert.deepEqual(result.induction.variants.variants, [variant]);
  assert.deepEqual(result.induction.original.variants, ["base"]);
  assert.ok(banks.variants.skills.every((s) => s.provenance.variants.includes(variant)));
  assert.ok(banks.variants.skills.some((s) => s.directive?.kind === "reconcile_after_timeout"));
  const [unmodified, heldout] = result.evaluation.sets;
  assert.equal(unmodified.name, "unmodified");
  const planned = 3 * 2 * 4;
  for (const arm of ["none", "original", "variants"] as const)
    assert.equal(unmodified.arms[arm].planned, planned);
  const c = unmodified.comparisons.variantsVsNone;
  assert.equal(c.pairs, planned);
  assert.ok(c.difference.estimate > 0);
  assert.ok(c.difference.ci[0] > 0, `CI ${c.difference.ci}`);
  assert.ok(c.mcnemar.p < 0.05, `McNemar p ${c.mcnemar.p}`);
  assert.equal(c.b_only, 0, "no pair where no-skills passed and (b) failed");
  // the held-out family was never induced from, and the reconcile skill transfers to it
  assert.equal(heldout.name, "heldout");
  assert.deepEqual(heldout.families, ["delayed-receipt"]);
  assert.ok(heldout.arms.variants.passed > heldout.arms.none.passed);
  // the arm rates agree with the paired table
  assert.equal(unmodified.arms.variants.passed - unmodified.arms.none.passed, c.a_only - c.b_only);
});

test("the LLM inducer runs end to end against the fake provider; its prompt is recorded", async () => {
  const seen: string[] = [];
  const server = await startFakeLlmServer({
    model: (request) => {
      seen.push(request.system);
      const ids = [...firstUserText(request).matchAll(/trial (\S+) \((violated|failed)/g)].map((m) => m[1]);
      return {
        text: JSON.stringify({
          skills: [
            {
              title: "Reuse the idempotency key after a timeout",
              text: "After create_replacement times out, call find_replacements with the same idempotency_key before retrying with that key.",
              trials: ids.slice(0, 2),
              directive: {
                kind: "reconcile_after_timeout",
                tool: "create_replacement",
                find: "find_replacements",
                keyArg: "idempotency_key",
              },
            },
            { title: "no text" },
          ],
        }),
      };
    },
  });
  try {
    const config = { ...defaultConfig("openai", "fake-inducer", server.baseURL), apiKey: "k" };
    const { result, banks } = await runLearn(
      { ...small, id: "learn-llm", inducer: llmInducer(config) },
      { run: defaultGym().runOptions() },
    );
    assert.equal(result.inducer, "llm:openai:fake-inducer");
    assert.equal(server.stats.requests, 2, "one inducer call per arm");
    assert.deepEqual(seen, [LLM_INDUCER_SYSTEM, LLM_INDUCER_SYSTEM]);
    const record = banks.variants.induction[0];
    assert.equal(record.prompt?.system, LLM_INDUCER_SYSTEM);
    for (const t of banks.variants.skills[0].provenance.trials)
      assert.ok(record.prompt?.user.includes(`trial ${t} `));
    assert.deepEqual(record.rejected, ["skills[1]: no text"]);
    const skill = banks.variants.skills[0];
    assert.equal(skill.inducer, "llm:openai:fake-inducer");
    assert.ok(skill.provenance.trials.length > 0 && skill.provenance.trials.length <= 2);
    assert.ok(result.evaluation.sets[0].comparisons.variantsVsNone.difference.estimate > 0);
  } finally {
    await server.close();
  }
});

test("an unusable LLM reply gives no skills and is recorded as rejected, not thrown", async () => {
  const server = await startFakeLlmServer({ model: () => ({ text: "I cannot help with that." }) });
  try {
    const inducer = llmInducer({ ...defaultConfig("openai", "m", server.baseURL), apiKey: "k" });
    const { records } = { records: [] as TrialRecord[] };
    const out = await inducer.induce(records);
    assert.deepEqual(out.skills, []);
    assert.match(out.record.rejected?.[0] ?? "", /no JSON object/);
  } finally {
    await server.close();
  }
});

test("an LLM agent takes retrieved skills into its system prompt and records their ids", async () => {
  const { banks } = await offline;
  const gym = defaultGym();
  const systems: string[] = [];
  const cautious = policyModel(gym.world("device-support@1").policies.cautious);
  const server = await startFakeLlmServer({
    model: (request) => {
      systems.push(request.system);
      return cautious(request);
    },
  });
  try {
    const config = { ...defaultConfig("openai", "fake-model", server.baseURL), apiKey: "k" };
    const agent = createLlmAgent(config, { skills: skillSource(banks.variants, 2) });
    const records: TrialRecord[] = [];
    await runExperiment(
      parseExperiment({
        worlds: ["device-support@1"],
        families: ["lost-reply"],
        difficulties: [1],
        agents: ["x"],
      }),
      {
        ...gym.runOptions(),
        agents: [{ ref: { id: "llm+skills", kind: "llm", spec: "x" }, forWorld: () => agent }],
        onTrial: (r) => records.push(r),
      },
    );
    const expected = skillSource(
      banks.variants,
      2,
    )({
      instruction: records[0].task.instruction,
      tools: records[0].initial?.kind === "task" ? records[0].initial.tools : [],
    });
    assert.ok(expected.length > 0);
    for (const s of expected) assert.ok(systems[0].includes(s.text));
    assert.deepEqual(
      records[0].steps[0].meta?.skills,
      expected.map((s) => s.id),
    );
    assert.equal(records[0].steps[1].meta?.skills, undefined);
  } finally {
    await server.close();
  }
});
