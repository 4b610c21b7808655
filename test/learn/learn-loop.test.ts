import assert from "node:assert/strict";
import { test } from "node:test";
import { firstUserText, policyModel, startFakeLlmServer } from "../../src/agents/llm/fake/index.ts";
import { createLlmAgent, defaultConfig } from "../../src/agents/llm/index.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { variantId } from "../../src/harness/variant.ts";
import { type ArmAgentContext, armAgents } from "../../src/learn/arm-agent.ts";
import {
  defaultHeldoutFamilies,
  defaultLearnVariants,
  type LearnOptions,
  runLearn,
} from "../../src/learn/learn-loop.ts";
import { LLM_INDUCER_SYSTEM, llmInducer } from "../../src/learn/llm-inducer.ts";
import { type ClusteredPair, compareClustered } from "../../src/learn/paired-arms.ts";
import { skillSource } from "../../src/learn/skill-source.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";

const gym = defaultGym();

function context(world: string, env: Record<string, string> = {}): ArmAgentContext {
  return {
    resolveAgent: gym.resolveAgent,
    cwd: process.cwd(),
    world: gym.world(world),
    env,
    prices: gym.prices,
    limiters: gym.limiters,
  };
}

const small: LearnOptions = {
  id: "learn-test",
  world: "device-support@1",
  trainFamilies: ["approved-replacement", "needs-approval", "lost-reply"],
  heldoutFamilies: ["delayed-receipt"],
  inductionTrials: 3,
  inductionSeeds: [1, 2],
  evalDifficulties: [1, 2],
  evalTrials: 2,
  concurrency: 2,
  bootstrapIterations: 2000,
};

const demo = (async () =>
  runLearn(small, {
    run: gym.runOptions(),
    agents: await armAgents("demo-directives", context(small.world)),
  }))();

test("the defaults come from the world: held-out families and the keyed-write variant", () => {
  assert.deepEqual(defaultHeldoutFamilies(gym.world("device-support@1")), [
    "approval-revised",
    "unverifiable",
  ]);
  assert.deepEqual(defaultHeldoutFamilies(gym.world("order-ops@1")), ["cancel-order"]);
  const [ds] = defaultLearnVariants(gym.world("device-support@1"));
  assert.deepEqual(ds.layers, [
    { id: "rule.lose-reply-after-commit@1", params: { tool: "create_replacement" } },
  ]);
  const [oo] = defaultLearnVariants(gym.world("order-ops@1"));
  assert.deepEqual(oo.layers, [{ id: "rule.lose-reply-after-commit@1", params: { tool: "issue_refund" } }]);
  assert.deepEqual(defaultLearnVariants(gym.world("code-repair@1")), []);
});

test("demo-directives: every induction seed induces its own banks; the evaluation pools them; the output says it proves nothing about transfer", async () => {
  const { result, banks } = await demo;
  assert.deepEqual(result.settings.inductionSeeds, [1, 2]);
  assert.deepEqual(
    banks.map((b) => b.seed),
    [1, 2],
  );
  assert.deepEqual(
    result.induction.original.map((a) => [a.seed, a.experimentId, a.trials]),
    [
      [1, "learn-test-induce-original-s1", 3],
      [2, "learn-test-induce-original-s2", 3],
    ],
  );
  const variant = variantId(gym.harness.normalize(defaultLearnVariants(gym.world("device-support@1"))[0]));
  for (const arm of result.induction.variants) assert.deepEqual(arm.variants, [variant]);
  for (const b of banks) assert.ok(b.variants.skills.every((s) => s.provenance.variants.includes(variant)));
  // no enum directive in the skill format: text (and provenance) only
  for (const b of banks) for (const s of b.variants.skills) assert.equal("directive" in s, false);
  const [unmodified, heldout] = result.evaluation.sets;
  const units = 3 * 2 * 2;
  assert.equal(unmodified.arms.none.planned, units);
  assert.equal(unmodified.arms.variants.planned, units * 2, "pooled over two induction seeds");
  const c = unmodified.comparisons.variantsVsNone;
  assert.equal(c.perPair.pairs, units * 2);
  assert.deepEqual(
    c.perSeed.map((s) => s.seed),
    [1, 2],
  );
  assert.equal(c.difference.clusters, 3);
  assert.ok(c.difference.estimate > 0);
  assert.equal(heldout.families.join(), "delayed-receipt");
  assert.equal(result.agent.channel, "demo");
  assert.match(result.doesNotMeasure.join(" "), /proves nothing about transfer/);
});

test("clustered intervals are wider than per-pair ones when outcomes repeat within a family", () => {
  // 4 families × 12 deterministic pairs: A always passes in two families, never differs in the others
  const pairs: ClusteredPair[] = [];
  for (const [family, a, b] of [
    ["f1", true, false],
    ["f2", true, false],
    ["f3", true, true],
    ["f4", false, false],
  ] as const)
    for (let i = 0; i < 12; i++) pairs.push({ family, seed: 1 + (i % 3), a, b });
  const c = compareClustered(pairs, { confidence: 0.95, iterations: 4000 });
  assert.equal(c.difference.estimate, 0.5);
  assert.equal(c.difference.clusters, 4);
  const clustered = c.difference.hi - c.difference.lo;
  const perPair = c.perPair.newcombe[1] - c.perPair.newcombe[0];
  assert.ok(clustered > perPair * 1.5, `clustered ${clustered} vs per pair ${perPair}`);
  assert.ok(c.difference.lo <= 0.25 && c.difference.hi >= 0.75, `${c.difference.lo}..${c.difference.hi}`);
  assert.ok(c.perPair.newcombe[0] > 0.3, "the per-pair interval claims far more than four families show");
});

test("order-ops@1: a scripted policy takes the skills in its context, ignores them, and the arms come out equal", async () => {
  const agents = await armAgents("new-key-retry", context("order-ops@1"));
  assert.equal(agents.channel, "context");
  const { result, banks } = await runLearn(
    {
      id: "learn-oo",
      world: "order-ops@1",
      inductionTrials: 4,
      inductionSeeds: [1, 2, 3],
      evalDifficulties: [1],
      evalTrials: 2,
      concurrency: 2,
      bootstrapIterations: 1000,
    },
    { run: gym.runOptions(), agents },
  );
  assert.equal(result.world, "order-ops@1");
  assert.deepEqual(result.settings.heldoutFamilies, ["cancel-order"]);
  assert.equal(result.induction.variants.length, 3);
  // duplicate_refund after a lost issue_refund reply: the reconcile lesson, in order-ops' own tools
  assert.ok(banks.every((b) => b.variants.skills.some((s) => /list_refunds/.test(s.text))));
  const [unmodified] = result.evaluation.sets;
  assert.equal(unmodified.comparisons.variantsVsNone.difference.estimate, 0);
  assert.equal(unmodified.comparisons.originalVsNone.difference.estimate, 0);
  assert.match(result.doesNotMeasure.join(" "), /ignores context\.skills/);
});

test("an LLM agent (fake provider) gets each arm's skill texts in its system prompt; the no-skill arm none", async () => {
  const cautious = policyModel(gym.world("device-support@1").policies.cautious);
  const systems: string[] = [];
  const server = await startFakeLlmServer({
    model: (request) => {
      systems.push(request.system);
      return cautious(request);
    },
  });
  try {
    const agents = await armAgents(
      "openai:fake-model",
      context("device-support@1", { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    );
    assert.equal(agents.channel, "prompt");
    const { result, banks } = await runLearn(
      {
        ...small,
        id: "learn-llm-agent",
        trainFamilies: ["lost-reply"],
        heldoutFamilies: [],
        inductionTrials: 2,
        evalDifficulties: [1],
        evalTrials: 1,
        minSupport: 1,
      },
      { run: gym.runOptions(), agents },
    );
    assert.equal(result.agent.spec, "openai:fake-model");
    const texts = banks.flatMap((b) => [...b.original.skills, ...b.variants.skills].map((s) => s.text));
    assert.ok(texts.length > 0, "the cautious model's recoveries give skills");
    for (const t of texts)
      assert.ok(
        systems.some((s) => s.includes(t)),
        `no prompt carried: ${t}`,
      );
    // the induction trials and the no-skill arm were prompted without skills
    assert.ok(systems.some((s) => !s.includes("Skills learned")));
  } finally {
    await server.close();
  }
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
      { ...small, id: "learn-llm", inductionSeeds: [1], inducer: llmInducer(config) },
      { run: gym.runOptions(), agents: await armAgents("demo-directives", context(small.world)) },
    );
    assert.equal(result.inducer, "llm:openai:fake-inducer");
    assert.equal(server.stats.requests, 2, "one inducer call per arm");
    assert.deepEqual(seen, [LLM_INDUCER_SYSTEM, LLM_INDUCER_SYSTEM]);
    const record = banks[0].variants.induction[0];
    assert.equal(record.prompt?.system, LLM_INDUCER_SYSTEM);
    for (const t of banks[0].variants.skills[0].provenance.trials)
      assert.ok(record.prompt?.user.includes(`trial ${t} `));
    assert.deepEqual(record.rejected, ["skills[1]: no text"]);
    const skill = banks[0].variants.skills[0];
    assert.equal(skill.inducer, "llm:openai:fake-inducer");
    assert.ok(skill.provenance.trials.length > 0 && skill.provenance.trials.length <= 2);
    // the demo reads the reconcile phrase in the LLM's words too
    assert.ok(result.evaluation.sets[0].comparisons.variantsVsNone.difference.estimate > 0);
  } finally {
    await server.close();
  }
});

test("an unusable LLM reply gives no skills and is recorded as rejected, not thrown", async () => {
  const server = await startFakeLlmServer({ model: () => ({ text: "I cannot help with that." }) });
  try {
    const inducer = llmInducer({ ...defaultConfig("openai", "m", server.baseURL), apiKey: "k" });
    const out = await inducer.induce([] as TrialRecord[]);
    assert.deepEqual(out.skills, []);
    assert.match(out.record.rejected?.[0] ?? "", /no JSON object/);
  } finally {
    await server.close();
  }
});

test("an LLM agent takes retrieved skills into its system prompt and records their ids", async () => {
  const { banks } = await demo;
  const bank = banks[0].variants;
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
    const agent = createLlmAgent(config, { skills: skillSource(bank, 2) });
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
      bank,
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
