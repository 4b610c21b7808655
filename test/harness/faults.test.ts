/** The fault library: every fault is a rule with params, each tested on a world. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { inspectionOf } from "../../src/core/capabilities.ts";
import type { ToolResult } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { FAULT_RULES } from "../../src/harness/faults/index.ts";
import { act, call, errCode, makeHarness, start, stepTool, worldTrace } from "./helpers.ts";

const harness = makeHarness();
const OO = "order-ops@1";
const DS = "device-support@1";
const variant = (world: string, ...layers: { id: string; params?: JsonObject }[]) =>
  harness.build({ world, layers: layers.map((l) => ({ id: l.id, params: l.params ?? {} })) });
const num = (v: unknown) => Number(v);

describe("fault rules", () => {
  test("the library has the nine faults, each with a params schema", () => {
    assert.deepEqual(FAULT_RULES.map((r) => r.id).sort(), [
      "rule.delay-job@1",
      "rule.disable-tool@1",
      "rule.hide-field@1",
      "rule.latency@1",
      "rule.lose-reply-after-commit@1",
      "rule.rate-limit@1",
      "rule.stale-read@1",
      "rule.timeout-before-commit@1",
      "rule.unavailable@1",
    ]);
    assert.throws(
      () =>
        harness.build({ world: OO, layers: [{ id: "rule.rate-limit@1", params: { limit: 0, window: 10 } }] }),
      (err: Error & { code?: string }) =>
        err.code === "bad_layer_params" && /params\.limit/.test(err.message),
    );
  });

  test("lose-reply-after-commit: the write commits, the agent gets a retryable timeout; `times` of them", async () => {
    const env = variant(OO, {
      id: "rule.lose-reply-after-commit@1",
      params: { tool: "issue_refund", times: 1 },
    });
    const ctx = await start(harness, env, OO, "refund");
    const args = {
      order_id: String(ctx.order_id),
      amount: num((ctx.request as JsonObject).amount),
      reason: "x",
    };
    const r1 = await call(env, "issue_refund", { ...args, idempotency_key: "k" });
    assert.deepEqual(r1, {
      ok: false,
      error: { code: "timeout", message: "the request timed out", retryable: true },
    });
    assert.equal((inspectionOf(env).view().refunds as unknown[]).length, 1, "it committed");
    const r2 = await call(env, "issue_refund", { ...args, idempotency_key: "k" });
    assert.equal(
      r2.ok,
      true,
      "the second reply is not lost (times: 1), and the same key commits nothing new",
    );
    assert.equal((inspectionOf(env).view().refunds as unknown[]).length, 1);
    const failed = await call(env, "issue_refund", { ...args, amount: 10 ** 9, idempotency_key: "k2" });
    assert.equal(errCode(failed), "invalid_argument", "a failed call is never turned into a timeout");
  });

  test("timeout-before-commit: nothing commits; only a call the world would accept times out", async () => {
    const env = variant(DS, { id: "rule.timeout-before-commit@1", params: { tool: "create_replacement" } });
    const ctx = await start(harness, env, DS, "needs-approval");
    const caseId = String(ctx.case_id);
    const got = (await call(env, "get_case", { case_id: caseId })) as JsonObject;
    const args = {
      case_id: caseId,
      model: String((got.device as JsonObject).model),
      address_id: String(((got.customer as JsonObject).addresses as JsonObject[])[0].address_id),
      idempotency_key: "k",
    };
    const early = await call(env, "create_replacement", args);
    assert.equal(
      errCode(early),
      "approval_required",
      "a call the world would refuse is not faked as a timeout",
    );
    await call(env, "request_approval", { case_id: caseId, reason: "broken" });
    await call(env, "wait", { seconds: 3600 });
    const timedOut = await call(env, "create_replacement", args);
    assert.equal(errCode(timedOut), "timeout");
    assert.equal((inspectionOf(env).view().replacements as unknown[]).length, 0, "nothing committed");
    assert.ok(
      !worldTrace(env).some((e) => e.tool === "create_replacement" && errCode(e.result) === "timeout"),
    );
    const retry = await call(env, "create_replacement", args);
    assert.equal(retry.ok, true);
    assert.equal((inspectionOf(env).view().replacements as unknown[]).length, 1);
  });

  test("rate-limit: beyond `limit` calls per window a 429-like rate_limited with retry_after", async () => {
    const env = variant(OO, {
      id: "rule.rate-limit@1",
      params: { tools: ["get_order"], limit: 2, window: 60 },
    });
    const ctx = await start(harness, env, OO, "refund");
    const read = () => call(env, "get_order", { order_id: String(ctx.order_id) });
    assert.equal((await read()).ok, true);
    assert.equal((await read()).ok, true);
    const limited = await read();
    assert.equal(errCode(limited), "rate_limited");
    if (!limited.ok) {
      assert.equal(limited.error.retryable, true);
      const after = (limited.error as unknown as JsonObject).retry_after;
      assert.equal(typeof after, "number");
      assert.ok(num(after) >= 1 && num(after) <= 60);
      assert.equal(
        (await call(env, "get_shipment", { order_id: String(ctx.order_id) })).ok,
        true,
        "other tools are not limited",
      );
      await call(env, "wait", { seconds: num(after) });
    }
    assert.equal((await read()).ok, true, "after retry_after it answers again");
  });

  test("unavailable: the tool is down during [from, until) and answers again afterwards", async () => {
    const env = variant(OO, {
      id: "rule.unavailable@1",
      params: { tools: ["get_shipment"], from: 10, until: 100 },
    });
    const ctx = await start(harness, env, OO, "address-change");
    const read = () => call(env, "get_shipment", { order_id: String(ctx.order_id) });
    assert.equal((await read()).ok, true, "before the window");
    await call(env, "wait", { seconds: 20 });
    const down = await read();
    assert.equal(errCode(down), "unavailable");
    if (!down.ok) assert.equal(down.error.retryable, true);
    assert.equal(
      (await call(env, "get_order", { order_id: String(ctx.order_id) })).ok,
      true,
      "other tools work",
    );
    await call(env, "wait", { seconds: 100 });
    assert.equal((await read()).ok, true, "after the window");
  });

  test("stale-read: the read answers with the state as of N seconds ago", async () => {
    // address-change d3: the order ships during the episode (a background job)
    const env = variant(OO, { id: "rule.stale-read@1", params: { tool: "get_shipment", seconds: 500 } });
    const ctx = await start(harness, env, OO, "address-change", 3, 0, { shipDelay: 200 });
    const orderId = String(ctx.order_id);
    assert.equal(((await call(env, "get_shipment", { order_id: orderId })) as JsonObject).shipment, null);
    await call(env, "wait", { seconds: 300 });
    assert.equal(
      (inspectionOf(env).view().orders as JsonObject[]).find((o) => o.order_id === orderId)?.status,
      "shipped",
    );
    const stale = (await call(env, "get_shipment", { order_id: orderId })) as JsonObject;
    assert.equal(stale.shipment, null, "as of 500 s ago it had not shipped");
    const traced = worldTrace(env).at(-1)!.result as ToolResult & JsonObject;
    assert.equal(traced.ok, true);
    assert.equal(traced.shipment, null, "the world traced the stale answer");
    await call(env, "wait", { seconds: 600 });
    const fresh = (await call(env, "get_shipment", { order_id: orderId })) as JsonObject;
    assert.ok(fresh.shipment, "once 500 s have passed since shipping, the read shows it");
  });

  test("delay-job: background jobs fire later", async () => {
    const bare = harness.build({ world: OO, layers: [] });
    const delayed = variant(OO, { id: "rule.delay-job@1", params: { kinds: ["order.ship"], seconds: 1000 } });
    for (const env of [bare, delayed])
      await start(harness, env, OO, "address-change", 3, 0, { shipDelay: 200 });
    assert.equal(inspectionOf(bare).pendingJobs()[0].due, 200);
    assert.equal(inspectionOf(delayed).pendingJobs()[0].due, 1200);
    const shipped = (env: typeof bare) => (inspectionOf(env).view().shipments as unknown[]).length;
    const before = [shipped(bare), shipped(delayed)];
    await call(bare, "wait", { seconds: 300 });
    await call(delayed, "wait", { seconds: 300 });
    assert.equal(shipped(bare), before[0] + 1, "the bare world shipped at 200 s");
    assert.equal(shipped(delayed), before[1], "the delayed job has not fired at 300 s");
    await call(delayed, "wait", { seconds: 1000 });
    assert.equal(shipped(delayed), before[1] + 1, "it fires at 1200 s");
    // device-support is a tool world too: a denial decided before the episode comes later
    const ds = variant(DS, { id: "rule.delay-job@1", params: { kinds: ["approval.decide"], seconds: 1000 } });
    const bareDs = harness.build({ world: DS, layers: [] });
    for (const env of [bareDs, ds]) await start(harness, env, DS, "denied", 2, 0);
    assert.equal(inspectionOf(ds).pendingJobs()[0].due, inspectionOf(bareDs).pendingJobs()[0].due + 1000);
  });

  test("hide-field: the field is gone from what the tool returns (the world still has it)", async () => {
    const env = variant(OO, {
      id: "rule.hide-field@1",
      params: { fields: ["order.address_id", "customer.addresses.city"], tools: ["get_order"] },
    });
    const ctx = await start(harness, env, OO, "address-change");
    const r = (await call(env, "get_order", { order_id: String(ctx.order_id) })) as JsonObject;
    assert.equal(r.ok, true);
    assert.equal((r.order as JsonObject).address_id, undefined);
    assert.ok((r.order as JsonObject).status);
    for (const a of (r.customer as JsonObject).addresses as JsonObject[]) {
      assert.equal(a.city, undefined);
      assert.ok(a.address_id);
    }
    const order = (inspectionOf(env).view().orders as JsonObject[]).find((o) => o.order_id === ctx.order_id);
    assert.ok(order?.address_id, "the world's own data is intact");
    const other = (await call(env, "get_shipment", { order_id: String(ctx.order_id) })) as JsonObject;
    assert.equal(other.ok, true, "other tools are untouched");
  });

  test("disable-tool: calls are refused (not retryable) and the tool is not listed", async () => {
    const env = variant(DS, { id: "rule.disable-tool@1", params: { tool: "find_replacements" } });
    const task = harness.registry.world(DS).generateTask({ family: "lost-reply", difficulty: 1, seed: 0 });
    const obs = await env.reset({ task, seed: 0 });
    assert.ok(obs.kind === "task" && !obs.tools.some((t) => t.name === "find_replacements"));
    const caseId = String(obs.kind === "task" ? obs.context.case_id : "");
    const r = await call(env, "find_replacements", { case_id: caseId });
    assert.deepEqual(r, {
      ok: false,
      error: { code: "tool_disabled", message: "find_replacements is disabled", retryable: false },
    });
    const shown = variant(DS, {
      id: "rule.disable-tool@1",
      params: { tool: "find_replacements", hide: false },
    });
    assert.ok(
      shown.spec.tools.some((t) => t.name === "find_replacements"),
      "hide: false keeps it listed",
    );
  });

  test("latency: a call takes longer in virtual time, and jobs due meanwhile fire before the reply", async () => {
    const bare = harness.build({ world: OO, layers: [] });
    const slow = variant(OO, { id: "rule.latency@1", params: { tools: ["get_shipment"], seconds: 600 } });
    const seen: { now: number; answer: unknown; status: unknown }[] = [];
    for (const env of [bare, slow]) {
      const ctx = await start(harness, env, OO, "address-change", 3, 0, { shipDelay: 300 });
      const r = await stepTool(env, "get_shipment", { order_id: String(ctx.order_id) });
      assert.ok(r.observation.kind === "tool_result");
      if (r.observation.kind !== "tool_result") return;
      assert.equal(r.observation.now, r.info.now, "observation and info agree on the time");
      const order = (inspectionOf(env).view().orders as JsonObject[]).find(
        (o) => o.order_id === ctx.order_id,
      );
      seen.push({
        now: r.info.now,
        answer: (r.observation.result as ToolResult & JsonObject).shipment,
        status: order?.status,
      });
    }
    assert.equal(seen[1].now - seen[0].now, 600);
    assert.equal(seen[0].answer, null);
    assert.notEqual(seen[0].status, "shipped", "without latency the reply comes before the order ships");
    assert.equal(seen[1].answer, null, "answered before it shipped…");
    assert.equal(seen[1].status, "shipped", "…received after it shipped");
    // device-support takes it too: every call 5 s slower
    const dsBare = harness.build({ world: DS, layers: [] });
    const dsSlow = variant(DS, { id: "rule.latency@1", params: { seconds: 5 } });
    const times: number[] = [];
    for (const env of [dsBare, dsSlow]) {
      const ctx = await start(harness, env, DS, "approved-replacement", 1, 0);
      times.push((await stepTool(env, "get_case", { case_id: String(ctx.case_id) })).info.now);
    }
    assert.equal(times[1] - times[0], 5);
  });

  test("each fault rule turns up in info.layers only on the steps it acted on", async () => {
    const env = variant(OO, { id: "rule.lose-reply-after-commit@1", params: { tool: "issue_refund" } });
    const ctx = await start(harness, env, OO, "refund");
    const quiet = await env.step(act("get_order", { order_id: String(ctx.order_id) }));
    assert.equal(quiet.info.layers, undefined);
    const loud = await env.step(
      act("issue_refund", { order_id: String(ctx.order_id), amount: 100, reason: "x", idempotency_key: "k" }),
    );
    assert.deepEqual(loud.info.layers, ["rule.lose-reply-after-commit@1"]);
  });
});
