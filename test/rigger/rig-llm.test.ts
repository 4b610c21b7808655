import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, type FakeRequest, startFakeLlmServer } from "../../src/agents/llm/fake/index.ts";
import { ruleCodeRealizer } from "../../src/rigger/code/index.ts";
import { llmDesignerFromSpec } from "../../src/rigger/llm-designer.ts";
import { rig } from "../../src/rigger/rig.ts";
import { generatedRule, isolateRuleSandbox, RULE_CODE_API } from "../../src/rules/index.ts";
import { gym, plantedAgent, rolloutsFor, TIMEOUT_ONCE_RULE } from "./support.ts";

const GOOD = TIMEOUT_ONCE_RULE;
const BROKEN = GOOD.replace("refused < 1)", "refused < 1");
const reply = (code: string) => `### Proposal: time the write out once\n\`\`\`typescript\n${code}\n\`\`\`\n`;

describe("rig with the LLM designer", () => {
  let server: FakeLlmServer;
  const prompts: string[] = [];
  before(async () => {
    server = await startFakeLlmServer({
      apiKey: "test-key",
      model: (req: FakeRequest) => {
        prompts.push(req.turns.map((t) => t.text).join("\n"));
        return { text: reply(req.turn === 0 ? BROKEN : GOOD) };
      },
    });
  });
  after(() => server.close());

  it("diagnoses, gets code (repaired after a compile error), runs it sandboxed and accepts the variant", async () => {
    const rules = generatedRule(isolateRuleSandbox({ timeoutMs: 1000 }));
    const designer = llmDesignerFromSpec("llm:openai:designer-model", {
      cwd: process.cwd(),
      env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "test-key" },
      prices: gym.prices,
      rules,
      checkLayers: (w, layers) => {
        gym.harness.normalize({ world: w, layers });
      },
    });
    const rollouts = await rolloutsFor("device-support@1", plantedAgent("device-claims"));
    const r = await rig({
      id: "rig-llm",
      rollouts,
      designer,
      realizeCode: ruleCodeRealizer(rules),
      ruleApi: RULE_CODE_API,
      layers: gym.harness.layers(),
    });
    assert.equal(r.diagnoses[0].pattern, "unobserved-claim");
    assert.ok(prompts.length >= 2, "a repair round after the compile error");
    assert.ok(prompts[0].includes("unobserved-claim") && prompts[0].includes("create_replacement"));
    const accepted = r.candidates.find((c) => c.decision === "ACCEPT");
    assert.ok(accepted, JSON.stringify(r.candidates.map((c) => [c.decision, c.reason])));
    assert.equal(accepted.designer, "llm:openai:designer-model");
    assert.match(accepted.codeHash ?? "", /^[0-9a-f]{64}$/);
    assert.deepEqual(accepted.layers, ["rule.generated@1"]);
    assert.ok(
      accepted.validation && accepted.validation.knownGood.passed === accepted.validation.knownGood.trials,
    );
    assert.ok((r.rollouts.perPattern["unobserved-claim:create_replacement"] ?? 99) <= 50);
  });
});
