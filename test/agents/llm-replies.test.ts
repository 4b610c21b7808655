/**
 * What the model says, through whole episodes: malformed output becomes error observations, several
 * tool calls become consecutive actions, text-only replies are nudged, token and cost budgets end the
 * trial, and the response cache replays runs exactly.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import {
  callHistory,
  type FakeModel,
  firstUserText,
  policyModelByName,
  withMalformed,
} from "../../src/agents/llm/fake/index.ts";
import { INVALID_ARGUMENTS_KEY } from "../../src/agents/llm/index.ts";
import type { StepRecord } from "../../src/core/contracts.ts";
import { envFor, outcomesOf, registry, runWithRecords, specFor, withEnv, withServer } from "./llm-support.ts";

const cautious = () => policyModelByName("cautious", registry);
const errorCode = (s: StepRecord) =>
  s.observation.kind === "tool_result" && !s.observation.result.ok
    ? s.observation.result.error.code
    : undefined;

for (const format of ["openai", "anthropic"] as const) {
  test(`${format}: malformed tool calls become error observations, and the episode goes on`, async () => {
    const model = withMalformed(cautious(), { 0: "invalid_json", 2: "unknown_tool", 3: "non_object" });
    await withServer({ model }, async (server) => {
      const { records } = await withEnv(envFor(server), () =>
        runWithRecords({ agents: [specFor(format, server)], families: ["lost-reply"], difficulties: [1] }),
      );
      const r = records[0];
      assert.equal(r.outcome, "passed", r.reason);
      const bad = r.steps.filter((s) => s.meta?.malformed !== undefined);
      assert.equal(bad.length, 3);
      // Anthropic sends tool input as an object on the wire: unparsable text arrives as a JSON string
      assert.deepEqual(
        bad.map((s) => s.meta?.malformed),
        [
          format === "openai" ? "invalid_json" : "non_object_arguments",
          "unknown_tool",
          "non_object_arguments",
        ],
      );
      for (const s of bad) assert.equal(errorCode(s), "invalid_argument", JSON.stringify(s.observation));
      assert.equal(bad[1].action.tool, "launch_rocket", "the record shows what the model called");
      assert.equal(typeof bad[0].action.args[INVALID_ARGUMENTS_KEY], "string", "and with what");
      // the model was told: the next request carries the world's error plus a note
      assert.ok(r.steps.length >= 8);
    });
  });
}

test("the model reads the error of its malformed call", async () => {
  const seen: string[] = [];
  const inner = withMalformed(cautious(), { 0: "invalid_json" });
  const model: FakeModel = (req) => {
    const first = callHistory(req)[0];
    if (req.turn === 1 && first?.result) seen.push(first.result);
    return inner(req);
  };
  await withServer({ model }, async (server) => {
    await withEnv(envFor(server), () =>
      runWithRecords({
        agents: [specFor("openai", server)],
        families: ["approved-replacement"],
        difficulties: [1],
      }),
    );
  });
  assert.equal(seen.length, 1);
  assert.match(seen[0], /"ok":false/);
  assert.match(seen[0], /not valid JSON/);
});

test("several tool calls in one reply become consecutive actions, one model call", async () => {
  const policy = cautious();
  const model: FakeModel = (req) => {
    if (req.turn > 0) return policy(req);
    const caseId = /\bC-\d+\b/.exec(firstUserText(req))?.[0] ?? "";
    return {
      text: "Reading the case and its approval.",
      toolCalls: [
        { name: "get_case", arguments: { case_id: caseId } },
        { name: "get_approval", arguments: { case_id: caseId } },
      ],
    };
  };
  await withServer({ model }, async (server) => {
    const { records } = await withEnv(envFor(server), () =>
      runWithRecords({
        agents: [specFor("anthropic", server)],
        families: ["approved-replacement"],
        difficulties: [1],
      }),
    );
    const r = records[0];
    assert.equal(r.outcome, "passed", r.reason);
    assert.deepEqual(
      r.steps.slice(0, 2).map((s) => s.action.tool),
      ["get_case", "get_approval"],
    );
    assert.deepEqual([r.steps[0].meta?.batchIndex, r.steps[1].meta?.batchIndex], [0, 1]);
    assert.ok(r.steps[0].meta?.tokensIn, "the reply's accounting rides on its first action");
    assert.equal(r.steps[1].meta?.tokensIn, undefined, "and only there");
    assert.equal(server.stats.requests, r.steps.length - 1, "one model call fewer than steps");
    assert.notEqual(r.steps[0].action.callId, r.steps[1].action.callId);
  });
});

test("a text-only reply is nudged; a model that never calls a tool is agent_error", async () => {
  const nudged = withMalformed(cautious(), { 0: "text_only" });
  await withServer({ model: nudged }, async (server) => {
    const { records } = await withEnv(envFor(server), () =>
      runWithRecords({
        agents: [specFor("openai", server)],
        families: ["approved-replacement"],
        difficulties: [1],
      }),
    );
    assert.equal(records[0].outcome, "passed", records[0].reason);
    assert.equal(records[0].steps[0].meta?.modelCalls, 2, "the nudge's call is charged to the next action");
  });
  await withServer({ model: () => ({ text: "All done!" }) }, async (server) => {
    const { records } = await withEnv(envFor(server), () =>
      runWithRecords({
        agents: [specFor("openai", server, "fake-model", "maxNudges=1")],
        families: ["approved-replacement"],
        difficulties: [1],
      }),
    );
    assert.equal(records[0].outcome, "agent_error");
    assert.match(records[0].reason, /no_tool_call/);
    assert.equal(server.stats.requests, 2);
  });
});

test("token and cost budgets end the trial as budget_exhausted", async () => {
  await withServer({ model: cautious() }, async (server) => {
    const priced = specFor("openai", server, "fake-model", "priceIn=1000&priceOut=1000&id=priced");
    const { records } = await withEnv(envFor(server), () =>
      runWithRecords({
        agents: [priced],
        families: ["lost-reply"],
        difficulties: [1],
        budget: { maxSteps: 50, maxTokens: 5000 },
      }),
    );
    const r = records[0];
    assert.equal(r.outcome, "budget_exhausted");
    assert.match(r.reason, /token budget/);
    assert.ok(r.stats.tokensIn + r.stats.tokensOut >= 5000);
    assert.ok(r.steps.length >= 1 && r.steps.length < 5);
    const perMillion = ((r.stats.tokensIn + r.stats.tokensOut) * 1000) / 1e6;
    assert.ok(Math.abs(r.stats.costUsd - perMillion) < 1e-9, "cost from the price table");

    const { records: costly } = await withEnv(envFor(server), () =>
      runWithRecords({
        agents: [priced],
        families: ["lost-reply"],
        difficulties: [1],
        budget: { maxSteps: 50, maxCostUsd: 3 },
      }),
    );
    assert.equal(costly[0].outcome, "budget_exhausted");
    assert.match(costly[0].reason, /cost budget/);
    assert.ok(costly[0].stats.costUsd >= 3);
  });
});

test("an unknown model's cost is marked unknown, never guessed", async () => {
  await withServer({ model: cautious() }, async (server) => {
    const { records } = await withEnv(envFor(server), () =>
      runWithRecords({
        agents: [specFor("openai", server)],
        families: ["approved-replacement"],
        difficulties: [1],
      }),
    );
    assert.equal(records[0].stats.costUsd, 0);
    assert.equal(records[0].steps[0].meta?.costUnknown, true);
  });
});

test("the response cache replays a run exactly, without calling the provider, and marks hits", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-llm-cache-"));
  try {
    await withServer({ model: cautious() }, async (server) => {
      const spec = specFor(
        "openai",
        server,
        "fake-model",
        `cache=${encodeURIComponent(dir)}&priceIn=1&priceOut=2`,
      );
      const input = {
        agents: [spec],
        families: ["lost-reply", "needs-approval"],
        difficulties: [2],
        trials: 2,
      };
      const first = await withEnv(envFor(server), () => runWithRecords(input));
      const calls = server.stats.requests;
      assert.ok(calls > 0);
      assert.equal(first.result.manifest[0].agent.config?.cache, dir);
      const second = await withEnv(envFor(server), () => runWithRecords(input));
      assert.equal(server.stats.requests, calls, "no provider call on replay");
      assert.deepEqual(outcomesOf(second.records), outcomesOf(first.records));
      assert.deepEqual(
        second.records.map((r) => r.trajectoryHash),
        first.records.map((r) => r.trajectoryHash),
      );
      for (const [i, r] of second.records.entries()) {
        assert.equal(r.stats.costUsd, 0, "a replay costs nothing");
        assert.equal(r.stats.tokensIn, first.records[i].stats.tokensIn, "tokens are the recorded ones");
        for (const s of r.steps) {
          assert.equal(s.meta?.cached, true);
          assert.equal(s.meta?.cacheHits, 1);
          assert.ok(Number(s.meta?.cachedCostUsd) > 0);
        }
      }
      for (const r of first.records) for (const s of r.steps) assert.equal(s.meta?.cached, false);
      // a different request (another system prompt) misses
      const other = specFor(
        "openai",
        server,
        "fake-model",
        `cache=${encodeURIComponent(dir)}&system=Be+brief.`,
      );
      await withEnv(envFor(server), () =>
        runWithRecords({ agents: [other], families: ["lost-reply"], difficulties: [2] }),
      );
      assert.ok(server.stats.requests > calls);
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
