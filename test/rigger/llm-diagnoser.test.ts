/**
 * The rigger's optional LLM diagnosis against the fake provider, in both wire formats: a scripted
 * diagnosing model that reads the shown trials and names the planted weakness with valid evidence
 * gives a diagnosis the pipeline turns into an accepted variant; invented trial ids, steps and passed
 * trials are dropped with a reason; a garbage reply is a recorded failure and the rule diagnoses stand;
 * the prompt holds tool calls and verdicts, never the agent's own words. Also the merge (same pattern:
 * evidence union) and `proving rig --diagnoser`.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  type FakeLlmServer,
  type FakeModel,
  type FakeRequest,
  startFakeLlmServer,
} from "../../src/agents/llm/fake/index.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { detectContext, diagnose } from "../../src/rigger/diagnose.ts";
import { llmDiagnoserFromSpec } from "../../src/rigger/llm-diagnoser.ts";
import { mergeDiagnoses } from "../../src/rigger/merge-diagnoses.ts";
import { rig } from "../../src/rigger/rig.ts";
import type { Rollouts } from "../../src/rigger/rollouts.ts";
import { templateDesigner } from "../../src/rigger/template-designer.ts";
import type { Diagnosis } from "../../src/rigger/types.ts";
import { parseJson, runCli } from "../support/cli.ts";
import { err, fakeRecord, gym, ok, plantedAgent, rolloutsFor, shownTrials } from "./support.ts";

const WORLD = "device-support@1";
const tools = gym.world(WORLD).create().spec.tools;

/**
 * A diagnosing model that reads the trials: a failed trial whose create_replacement call got an error
 * and whose last call ended the case is an unobserved claim; it cites that call and the last one.
 */
const readsTrials: FakeModel = (req: FakeRequest) => {
  const evidence = shownTrials(req.turns[0].text)
    .filter((t) => t.outcome !== "passed")
    .flatMap((t) => {
      const write = t.steps.find((s) => s.tool === "create_replacement" && s.answer.includes('"ok":false'));
      const last = t.steps[t.steps.length - 1];
      return write && last && last.index > write.index
        ? [{ trial_id: t.id, steps: [write.index, last.index] }]
        : [];
    });
  const diagnosis = {
    pattern: "unobserved-claim",
    axis: "observation",
    tool: "create_replacement",
    summary: "closes the case as replaced after a create_replacement error without seeing the request",
    evidence: evidence.slice(0, 3),
  };
  return { text: `Here is what I see.\n\`\`\`json\n${JSON.stringify({ diagnoses: [diagnosis] })}\n\`\`\`` };
};

let server: FakeLlmServer;
let model: FakeModel = readsTrials;
const seen: FakeRequest[] = [];
let baseline: TrialRecord[];

const env = () => ({
  OPENAI_BASE_URL: server.baseURL,
  OPENAI_API_KEY: "test-key",
  ANTHROPIC_BASE_URL: server.baseURL,
  ANTHROPIC_API_KEY: "test-key",
});
const diagnoser = (provider: "openai" | "anthropic") =>
  llmDiagnoserFromSpec(`llm:${provider}:diag-model`, { cwd: process.cwd(), env: env(), prices: gym.prices });

before(async () => {
  server = await startFakeLlmServer({
    apiKey: "test-key",
    model: (req) => {
      seen.push(req);
      return model(req);
    },
  });
  const rollouts = await rolloutsFor(WORLD, plantedAgent("device-claims"));
  baseline = await rollouts.run({
    id: "llm-diag-baseline",
    families: gym.world(WORLD).families.map((f) => f.name),
    difficulties: [1, 2],
    trials: 2,
    seed: 0,
    player: "target",
  });
});
after(() => server.close());

for (const provider of ["openai", "anthropic"] as const) {
  describe(`the LLM diagnoser (${provider} wire format)`, () => {
    it("a model naming the planted weakness with valid evidence gives a diagnosis the rig turns into an accepted variant", async () => {
      model = readsTrials;
      seen.length = 0;
      const d = diagnoser(provider);
      const rollouts = await rolloutsFor(WORLD, plantedAgent("device-claims"));
      const r = await rig({
        id: `rig-llmdiag-${provider}`,
        rollouts,
        designer: templateDesigner(),
        diagnoser: { llm: d, mode: "llm" },
        layers: gym.harness.layers(),
      });
      assert.equal(seen[0].format, provider);
      const rec = r.llmDiagnosis;
      assert.ok(rec, "the LLM diagnosis is in the rig result");
      assert.equal(rec.status, "ok", rec.error);
      assert.equal(r.diagnoser, `llm:${provider}:diag-model`);
      assert.equal(rec.prompt.system, seen[0].system);
      assert.equal(rec.calls[0].reply, (readsTrials(seen[0]) as { text: string }).text);
      assert.deepEqual(rec.dropped, []);
      // the pipeline works on the LLM's diagnosis (its evidence, its source)
      assert.equal(r.diagnoses[0].pattern, "unobserved-claim");
      assert.deepEqual(r.diagnoses[0].facts, {
        diagnosers: [`llm:${provider}:diag-model`],
        tool: "create_replacement",
      });
      assert.ok(r.diagnoses[0].evidence.length > 0 && r.diagnoses[0].evidence.length <= 3);
      for (const e of r.diagnoses[0].evidence) assert.ok(rec.trials.includes(e.trialId));
      const accepted = r.candidates.find((c) => c.decision === "ACCEPT");
      assert.ok(accepted, JSON.stringify(r.candidates.map((c) => [c.decision, c.reason])));
      assert.equal(accepted.pattern, "unobserved-claim");
      assert.equal(r.accepted.length, 1);
    });

    it("drops invented trial ids, steps, passed trials, vague patterns and bad axes, each with a reason", async () => {
      const failedTrial = baseline.find((t) => t.outcome !== "passed" && t.steps.length > 2) as TrialRecord;
      const passedTrial = baseline.find((t) => t.outcome === "passed") as TrialRecord;
      assert.ok(failedTrial && passedTrial);
      model = () => ({
        text: JSON.stringify({
          diagnoses: [
            {
              pattern: "unobserved-claim",
              axis: "action",
              evidence: [
                { trial_id: "trial-that-does-not-exist", steps: [1] },
                { trial_id: failedTrial.spec.id, steps: [1, 999] },
                { trial_id: passedTrial.spec.id, steps: [0] },
              ],
            },
            {
              pattern: "other",
              axis: "action",
              summary: "x",
              evidence: [{ trial_id: failedTrial.spec.id, steps: [0] }],
            },
            {
              pattern: "closes-without-reading-case",
              axis: "sideways",
              summary: "y",
              evidence: [{ trial_id: failedTrial.spec.id, steps: [0] }],
            },
            {
              pattern: "closes-without-reading-case",
              axis: "observation",
              summary: "ends the case before reading it",
              evidence: [{ trial_id: failedTrial.spec.id, steps: [0] }],
            },
            { pattern: "wait-loop", axis: "transition", evidence: [{ trial_id: "invented", steps: [0] }] },
            {
              pattern: "new-weakness",
              axis: "action",
              summary: "z",
              evidence: [{ trial_id: failedTrial.spec.id, steps: [0] }],
            },
          ],
        }),
      });
      const rec = await diagnoser(provider).diagnose({ world: WORLD, trials: baseline, tools });
      assert.equal(rec.status, "ok");
      assert.deepEqual(
        rec.diagnoses.map((d) => [d.pattern, d.axis, d.evidence]),
        [
          ["unobserved-claim", "observation", [{ trialId: failedTrial.spec.id, steps: [1] }]],
          ["closes-without-reading-case", "observation", [{ trialId: failedTrial.spec.id, steps: [0] }]],
        ],
      );
      assert.deepEqual(rec.diagnoses[0].families, [failedTrial.task.family]);
      const reasons = rec.dropped.map((x) => `${x.index} ${x.evidence?.trialId ?? "-"}: ${x.reason}`);
      const has = (re: RegExp) =>
        assert.ok(
          reasons.some((r) => re.test(r)),
          reasons.join("\n"),
        );
      has(/^0 trial-that-does-not-exist: .*not among the given trials/);
      has(new RegExp(`^0 ${failedTrial.spec.id}: .*no agent step 999`));
      has(new RegExp(`^0 ${passedTrial.spec.id}: .*only failed trials are evidence`));
      has(/^0 -: axis "action" replaced by the catalogue's "observation"/);
      has(/^1 -: pattern "other" is neither a catalogue id nor a clearly named new one/);
      has(/^2 -: axis "sideways" is not one of/);
      has(/^4 invented: .*not among the given trials/);
      has(/^4 -: no valid evidence left/);
      has(/^5 -: pattern "new-weakness" is neither a catalogue id nor a clearly named new one/);
    });

    it("a garbage reply is a recorded failure (after a format repair round) and the rule diagnoses stand", async () => {
      model = () => ({ text: "I think the agent is sloppy. {not json" });
      seen.length = 0;
      const { rollouts, baselineRecords } = await capturing();
      const r = await rig({
        id: `rig-llmdiag-garbage-${provider}`,
        rollouts,
        designer: templateDesigner(),
        diagnoser: { llm: diagnoser(provider), mode: "both" },
        layers: gym.harness.layers(),
        maxCandidates: 1,
      });
      const rec = r.llmDiagnosis;
      assert.ok(rec);
      assert.equal(rec.status, "failed");
      assert.match(rec.error ?? "", /could not be read/);
      assert.equal(rec.calls.length, 2);
      assert.ok(rec.calls.every((c) => c.reply === "I think the agent is sloppy. {not json"));
      assert.match(seen[1].turns.at(-1)?.text ?? "", /could not be read/);
      const rules = diagnose(baselineRecords, detectContext(gym.world(WORLD).create().spec));
      assert.deepEqual(
        r.diagnoses.map((d) => [d.pattern, d.evidence, d.facts?.diagnosers]),
        rules.map((d) => [d.pattern, d.evidence, ["rules"]]),
      );
      assert.ok(r.diagnoses.length > 0 && r.candidates.length > 0);
    });
  });
}

/** Rollouts of the planted agent that keep the rig's baseline records (to diagnose them with the rules alone). */
async function capturing(): Promise<{ rollouts: Rollouts; baselineRecords: TrialRecord[] }> {
  const inner = await rolloutsFor(WORLD, plantedAgent("device-claims"));
  const baselineRecords: TrialRecord[] = [];
  const rollouts: Rollouts = {
    world: inner.world,
    run: async (req) => {
      const rs = await inner.run(req);
      if (req.id.endsWith("-baseline")) baselineRecords.push(...rs);
      return rs;
    },
    ...(inner.variantId ? { variantId: (v) => inner.variantId?.(v) ?? "" } : {}),
  };
  return { rollouts, baselineRecords };
}

describe("what the diagnosing model is shown", () => {
  it("tool calls, answers and verdicts, never the agent's own words", async () => {
    const trial = fakeRecord("t-words", [
      { tool: "get_case", args: { case_id: "C1" }, result: ok({ status: "open" }) },
      { tool: "create_replacement", args: { case_id: "C1" }, result: err("timeout", true) },
      { tool: "close_case", args: { case_id: "C1", resolution: "replaced" }, result: ok() },
    ]);
    trial.steps[2].meta = { reasoning: "SECRET-CHAIN-OF-THOUGHT", tokensIn: 10 };
    model = () => ({ text: '{"diagnoses": []}' });
    seen.length = 0;
    const rec = await diagnoser("openai").diagnose({ world: "toy@1", trials: [trial], tools });
    assert.equal(rec.status, "ok");
    assert.deepEqual(rec.diagnoses, []);
    const sent = `${seen[0].system}\n${seen[0].turns.map((t) => t.text).join("\n")}`;
    assert.ok(!sent.includes("SECRET-CHAIN-OF-THOUGHT"));
    assert.ok(!JSON.stringify(rec.prompt).includes("SECRET-CHAIN-OF-THOUGHT"));
    assert.match(sent, /## Trial t-words: failed/);
    assert.match(sent, /1\. create_replacement \{"case_id":"C1"\} -> .*"code":"timeout"/);
    assert.match(sent, /unobserved-claim \[observation\]/);
    assert.match(sent, /- create_replacement: /);
  });

  it("a provider error is a recorded failure, not a throw", async () => {
    const d = llmDiagnoserFromSpec("llm:openai:diag-model", {
      cwd: process.cwd(),
      env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "wrong-key" },
      prices: gym.prices,
    });
    const rec = await d.diagnose({ world: WORLD, trials: baseline, tools });
    assert.equal(rec.status, "failed");
    assert.match(rec.error ?? "", /model call failed/);
    assert.equal(rec.calls[0].reply, undefined);
  });
});

describe("mergeDiagnoses", () => {
  const rule: Diagnosis = {
    pattern: "unobserved-claim",
    axis: "observation",
    families: ["a"],
    difficulties: [1],
    violations: ["false_claim"],
    evidence: [{ trialId: "t1", steps: [3, 5] }],
    facts: { tool: "create_replacement" },
    support: { trials: 1, of: 4 },
  };
  it("same pattern: evidence union and both sources; a new pattern is appended", () => {
    const llm: Diagnosis[] = [
      {
        ...rule,
        families: ["b"],
        difficulties: [2],
        violations: [],
        evidence: [
          { trialId: "t1", steps: [4, 5] },
          { trialId: "t2", steps: [1] },
        ],
        facts: { tool: "create_replacement", diagnosers: ["llm:x"] },
      },
      {
        ...rule,
        pattern: "closes-too-early",
        evidence: [{ trialId: "t3", steps: [0] }],
        facts: { diagnosers: ["llm:x"] },
      },
    ];
    const merged = mergeDiagnoses([rule], llm);
    assert.deepEqual(merged[0].evidence, [
      { trialId: "t1", steps: [3, 4, 5] },
      { trialId: "t2", steps: [1] },
    ]);
    assert.deepEqual(merged[0].families, ["a", "b"]);
    assert.deepEqual(merged[0].difficulties, [1, 2]);
    assert.deepEqual(merged[0].facts, { tool: "create_replacement", diagnosers: ["rules", "llm:x"] });
    assert.deepEqual(merged[0].support, { trials: 2, of: 4 });
    assert.deepEqual(
      merged.map((d) => d.pattern),
      ["unobserved-claim", "closes-too-early"],
    );
    assert.deepEqual(rule.evidence, [{ trialId: "t1", steps: [3, 5] }], "the inputs are not mutated");
  });
  it("the same pattern on another tool stays a separate diagnosis", () => {
    const other = { ...rule, facts: { tool: "close_case", diagnosers: ["llm:x"] } };
    assert.equal(mergeDiagnoses([rule], [other]).length, 2);
  });
});

describe("proving rig --diagnoser", () => {
  const PLUGIN = fileURLToPath(new URL("./agents/planted-plugin.ts", import.meta.url));
  let dir: string;
  let gymFile: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "rig-diag-"));
    gymFile = path.join(dir, "gym.json");
    const desc = gym.describe();
    fs.writeFileSync(
      gymFile,
      JSON.stringify({ ...desc, plugins: [PLUGIN], agentKinds: [...desc.agentKinds, "planted"] }),
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const args = (diagnoserFlag: string) => [
    "--gym",
    gymFile,
    "rig",
    "--world",
    WORLD,
    "--agent",
    "planted:device-claims",
    "--diagnoser",
    diagnoserFlag,
    "--store",
    path.join(dir, "store.db"),
    "--no-report",
    "--json",
  ];

  it("both:openai:MODEL merges the model's diagnoses into the rule ones and prints the record", async () => {
    model = readsTrials;
    const r = await runCli(args("both:openai:diag-model"), {
      env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "test-key" },
    });
    assert.equal(r.code, 0, r.stderr);
    const out = parseJson<{
      diagnoser: string;
      diagnoses: { pattern: string; diagnosers?: string[] }[];
      llm_diagnosis: { status: string; prompt: { user: string }; calls: { reply: string }[] };
      accepted: unknown[];
    }>(r);
    assert.equal(out.diagnoser, "both:llm:openai:diag-model");
    assert.equal(out.llm_diagnosis.status, "ok");
    assert.match(out.llm_diagnosis.prompt.user, /## Trial /);
    assert.match(out.llm_diagnosis.calls[0].reply, /unobserved-claim/);
    assert.equal(out.diagnoses[0].pattern, "unobserved-claim");
    assert.deepEqual(out.diagnoses[0].diagnosers, ["rules", "llm:openai:diag-model"]);
    assert.equal(out.accepted.length, 1);
  });

  it("both without an LLM model is a config error", async () => {
    const r = await runCli(args("both"));
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--diagnoser: .*both alone needs --designer llm/);
  });
});
