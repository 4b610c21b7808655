/**
 * One fault mechanism: the faults a task declares are harness rules, applied at the tool world's
 * dispatch point. A refused call is still a call of the world (traced, taking its latency, counted in
 * step indices); the rules are the fault library's, with the same semantics as a rule layer.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Task, ToolResult } from "../../src/core/contracts.ts";
import type { JsonObject, JsonValue } from "../../src/core/json.ts";
import type { ToolWorldState } from "../../src/core/tool-world.ts";
import { FAULT_RULES } from "../../src/harness/faults/index.ts";
import { fromBaseFaults, taskRules } from "../../src/harness/task-rules.ts";
import { RATE_LIMITED_TOOLS } from "../../src/worlds/device-support/tools.ts";
import { serviceFaultRules } from "../../src/worlds/shared/index.ts";
import { call, errCode, makeHarness, start, worldTrace } from "./helpers.ts";

const harness = makeHarness();
const DS = "device-support@1";
const OO = "order-ops@1";
const code = (r: ToolResult) => errCode(r);

describe("task-declared faults are rules at the dispatch point", () => {
  test("difficulty knobs become library rules: a rate limit on the polling tools, transient faults outside it", () => {
    const task = (d: number) =>
      harness.registry.world(DS).generateTask({ family: "lost-reply", difficulty: d, seed: 1 });
    const rules = (d: number) => serviceFaultRules(task(d).params as never, RATE_LIMITED_TOOLS);
    assert.deepEqual(rules(3), []);
    assert.deepEqual(rules(4), [
      {
        id: "rule.rate-limit@1",
        params: { tools: ["get_approval", "find_replacements"], limit: 4, window: 60 },
      },
    ]);
    assert.deepEqual(rules(5), [
      {
        id: "rule.rate-limit@1",
        params: { tools: ["get_approval", "find_replacements"], limit: 3, window: 60 },
      },
      { id: "rule.unavailable@1", params: { tools: ["get_approval"], times: 1 } },
    ]);
    for (const spec of rules(5))
      assert.ok(
        FAULT_RULES.some((r) => r.id === spec.id),
        spec.id,
      );
  });

  test("a refused call is a world call: traced, it takes the world's latency and a step index", async () => {
    const env = harness.registry.world(DS).create();
    const ctx = await start(harness, env, DS, "approved-replacement", 5, 2);
    const first = await env.step({
      tool: "get_approval",
      args: { case_id: String(ctx.case_id) },
      callId: "a",
    });
    const r = first.observation.kind === "tool_result" ? first.observation.result : undefined;
    assert.deepEqual(r, {
      ok: false,
      error: { code: "unavailable", message: "get_approval is temporarily unavailable", retryable: true },
    });
    assert.equal(first.info.now, 3, "latency 3 s at difficulty 5");
    assert.equal(first.info.layers, undefined, "no layer: the world itself refused");
    const second = await call(env, "get_approval", { case_id: String(ctx.case_id) });
    assert.equal(second.ok, true, "transient: the next call goes through");
    assert.deepEqual(
      worldTrace(env).map((e) => [e.tool, code(e.result) ?? "ok"]),
      [
        ["get_approval", "unavailable"],
        ["get_approval", "ok"],
      ],
    );
  });

  test("the rate limit counts accepted polling calls only, and answers rate_limited with retry_after", async () => {
    const env = harness.registry.world(OO).create();
    const ctx = await start(harness, env, OO, "refund", 1, 0, { rateLimit: { limit: 2, window: 100 } });
    const order = { order_id: String(ctx.order_id) };
    assert.equal((await call(env, "get_order", order)).ok, true);
    assert.equal(code(await call(env, "get_order", { order_id: 42 })), "invalid_argument", "not counted");
    assert.equal((await call(env, "get_order", order)).ok, true);
    const limited = await call(env, "get_order", order);
    assert.equal(code(limited), "rate_limited");
    assert.equal((limited as unknown as { error: JsonObject }).error.retry_after, 97);
    assert.equal(
      (await call(env, "send_message", { ticket_id: String(ctx.ticket_id), text: "hi" })).ok,
      true,
    );
    assert.equal(worldTrace(env).length, 5, "the refused call is in the trace");
  });

  test("saved mid-episode, the rules' memory is part of the world's state", async () => {
    const env = harness.registry.world(OO).create();
    const ctx = await start(harness, env, OO, "refund", 1, 0, { rateLimit: { limit: 1, window: 100 } });
    await call(env, "get_order", { order_id: String(ctx.order_id) });
    const copy = harness.restore(harness.save(env));
    assert.equal(code(await call(copy, "get_order", { order_id: String(ctx.order_id) })), "rate_limited");
  });

  test("rules.unavailable `times` behaves the same as a variant layer", async () => {
    const env = harness.build({
      world: OO,
      layers: [{ id: "rule.unavailable@1", params: { tools: ["get_order"], times: 2 } }],
    });
    const ctx = await start(harness, env, OO, "refund");
    const order = { order_id: String(ctx.order_id) };
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push(code(await call(env, "get_order", order)) ?? "ok");
    assert.deepEqual(codes, ["unavailable", "unavailable", "ok"]);
  });

  test("only rules that refuse calls can act there; unknown ids and bad params are config errors", () => {
    const state = (rules: { id: string; params: JsonObject }[]) => {
      const dispatch = taskRules({ rules: () => rules, library: FAULT_RULES });
      const task = { id: "t", world: "w@1", params: {} } as unknown as Task;
      return () => dispatch.start({ task, rules: null } as unknown as ToolWorldState);
    };
    const fails = (rules: { id: string; params: JsonObject }[], errorCode: string) =>
      assert.throws(state(rules), (e: Error & { code?: string }) => e.code === errorCode, errorCode);
    fails([{ id: "rule.lose-reply-after-commit@1", params: { tool: "x" } }], "capability_missing");
    fails([{ id: "rule.latency@1", params: { seconds: 3 } }], "capability_missing");
    fails([{ id: "rule.no-such@1", params: {} }], "unknown_layer");
    fails([{ id: "rule.rate-limit@1", params: { limit: 0, window: 1 } }], "bad_layer_params");
    fails([{ id: "rule.disable-tool@1", params: { tool: "x" } }], "capability_missing"); // it hides tools too
    state([{ id: "rule.unavailable@1", params: { tools: ["x"] } }])();
  });

  test("a state saved when the world applied its own base faults becomes the rules' histories", () => {
    const rules = serviceFaultRules(
      { rateLimit: { limit: 3, window: 60 }, transientUnavailable: ["get_approval", "find_replacements"] },
      ["get_approval"],
    ).map((spec) => {
      const def = FAULT_RULES.find((r) => r.id === spec.id)!;
      return def.create(def.params.parse(spec.params));
    });
    const faults: JsonObject = {
      firstCreate: "normal",
      rateLimit: { limit: 3, window: 60, calls: [10, 20] },
      transientUnavailable: ["find_replacements"], // get_approval's refusal was already given
    };
    const s = { faults } as unknown as ToolWorldState;
    const { histories } = fromBaseFaults(s, rules);
    assert.deepEqual(
      histories.map((h) => h.map((e) => [e.tool, e.t, e.blocked])),
      [
        [
          ["get_approval", 10, false],
          ["get_approval", 20, false],
        ],
        [["get_approval", 0, true]],
        [],
      ],
    );
    assert.deepEqual(faults, { firstCreate: "normal" } as JsonValue, "the legacy fields are gone");
  });
});
