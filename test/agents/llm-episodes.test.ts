/**
 * Whole device-support episodes through the fake provider, for every wire format: a model that
 * behaves like `cautious` passes lost-reply, one that behaves like `claims-success` is caught.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { policyModelByName } from "../../src/agents/llm/fake/index.ts";
import { envFor, outcomesOf, registry, runWithRecords, specFor, withEnv, withServer } from "./llm-support.ts";

const FORMATS = ["openai", "anthropic", "openai-compatible"] as const;

for (const format of FORMATS) {
  describe(`${format} wire format`, () => {
    test("a cautious-like model passes lost-reply, with accounting and a recorded config", async () => {
      await withServer({ model: policyModelByName("cautious", registry) }, async (server) => {
        const spec = specFor(format, server, "fake-model", "system=You+are+careful.&temperature=0");
        const { result, records } = await withEnv(envFor(server), () =>
          runWithRecords({ agents: [spec], families: ["lost-reply"], difficulties: [1, 3], trials: 2 }),
        );
        assert.deepEqual(outcomesOf(records), ["passed", "passed", "passed", "passed"]);
        assert.equal(
          server.stats.byFormat[format === "anthropic" ? "anthropic" : "openai"],
          server.stats.requests,
        );
        for (const r of records) {
          assert.ok(r.stats.tokensIn > 0 && r.stats.tokensOut > 0, "tokens are summed into the trial");
          const charged = r.steps.filter((s) => s.meta?.tokensIn !== undefined);
          assert.equal(charged.length, r.steps.length, "one model call per step here");
          for (const s of charged) {
            assert.equal(typeof s.meta?.latencyMs, "number");
            assert.equal(s.meta?.cached, false);
            assert.equal(s.meta?.modelCalls, 1);
          }
          // the lost reply: create_replacement answered timeout, then the model reconciled
          const tools = r.steps.map((s) => s.action.tool);
          assert.ok(tools.includes("find_replacements"), tools.join(","));
        }
        const ref = result.manifest[0].agent;
        assert.equal(ref.kind, "llm");
        assert.equal(ref.spec, spec);
        assert.equal(ref.config?.provider, format);
        assert.equal(ref.config?.model, "fake-model");
        assert.equal(ref.config?.baseURL, server.baseURL);
        assert.equal(ref.config?.systemPrompt, "You are careful.");
        assert.equal(ref.config?.temperature, 0);
        assert.equal(typeof ref.config?.instructionTemplate, "string");
        assert.ok(!JSON.stringify(ref.config).includes("test-key"), "the API key is never recorded");
      });
    });

    test("a claims-success-like model is caught (unsupported_claim)", async () => {
      await withServer({ model: policyModelByName("claims-success", registry) }, async (server) => {
        const { records } = await withEnv(envFor(server), () =>
          runWithRecords({
            agents: [specFor(format, server)],
            families: ["lost-reply"],
            difficulties: [2],
            trials: 2,
          }),
        );
        assert.deepEqual(outcomesOf(records), ["violated", "violated"]);
        for (const r of records) {
          assert.ok(
            r.verdict?.violations.some((v) => v.code === "unsupported_claim"),
            JSON.stringify(r.verdict),
          );
          assert.equal(r.steps.at(-1)?.action.tool, "close_case");
        }
      });
    });
  });
}

test("the same model through two formats gives the same trajectory", async () => {
  await withServer({ model: policyModelByName("cautious", registry) }, async (server) => {
    const run = (format: "openai" | "anthropic") =>
      withEnv(envFor(server), () =>
        runWithRecords({
          agents: [specFor(format, server)],
          families: ["delayed-receipt"],
          difficulties: [2],
        }),
      );
    const a = await run("openai");
    const b = await run("anthropic");
    const actions = (r: typeof a) => r.records[0].steps.map((s) => [s.action.tool, s.action.args]);
    assert.deepEqual(actions(a), actions(b));
    assert.equal(a.records[0].outcome, "passed");
  });
});
