/** order-ops@1: tools, background jobs, faults and the verifier's codes (spec/order-ops.md). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ToolResult, Verdict } from "../../../src/core/contracts.ts";
import type { JsonObject } from "../../../src/core/json.ts";
import { generateOrderOpsTask, OrderOpsWorld } from "../../../src/worlds/order-ops/index.ts";

let n = 0;
async function open(family: string, difficulty = 1, seed = 0, params?: JsonObject) {
  const world = new OrderOpsWorld();
  const task = generateOrderOpsTask({ family, difficulty, seed, ...(params ? { params } : {}) });
  const obs = await world.reset({ task, seed, episodeId: `e${seed}` });
  if (obs.kind !== "task") throw new Error("no task");
  const ctx = obs.context as { ticket_id: string; order_id: string; request: JsonObject };
  const call = async (tool: string, args: JsonObject): Promise<ToolResult & JsonObject> => {
    const r = await world.step({ tool, args, callId: `c${n++}` });
    if (r.observation.kind !== "tool_result") throw new Error("no result");
    return r.observation.result as ToolResult & JsonObject;
  };
  const close = async (resolution: string, reference?: string): Promise<Verdict> => {
    const r = await world.step({
      tool: "close_ticket",
      args: { ticket_id: ctx.ticket_id, resolution, ...(reference ? { reference } : {}) },
      callId: `c${n++}`,
    });
    assert.equal(r.terminated, true);
    return r.info.verdict!;
  };
  const order = () => (world.view().orders as JsonObject[]).find((o) => o.order_id === ctx.order_id)!;
  return { world, task, ctx, call, close, order };
}
const codes = (v: Verdict) => v.violations.map((x) => x.code).sort();
const code = (r: ToolResult) => (r.ok ? undefined : r.error.code);

describe("order-ops@1", () => {
  test("tasks are deterministic, name the ticket, the order and the request", () => {
    const a = generateOrderOpsTask({ family: "address-change", difficulty: 3, seed: 4 });
    assert.deepEqual(generateOrderOpsTask({ family: "address-change", difficulty: 3, seed: 4 }), a);
    const p = a.params as JsonObject;
    const ctx = p.context as JsonObject;
    assert.equal(ctx.order_id, p.order_id);
    assert.equal((ctx.request as JsonObject).type, "address_change");
    assert.match(a.instruction, /check whether the order already shipped/);
    assert.ok(a.tags.includes("ships-during-episode"));
    assert.throws(() => generateOrderOpsTask({ family: "nope", difficulty: 1, seed: 0 }), /unknown family/);
    assert.throws(
      () => generateOrderOpsTask({ family: "refund", difficulty: 1, seed: 0, params: { x: 1 } }),
      /unknown task param/,
    );
  });

  test("address change before shipping: the package later ships to the new address", async () => {
    const t = await open("address-change", 3, 1, { shipDelay: 100 });
    const target = String(t.ctx.request.address_id);
    assert.equal((await t.call("get_shipment", { order_id: t.ctx.order_id })).shipment, null);
    const u = await t.call("update_shipping_address", { order_id: t.ctx.order_id, address_id: target });
    assert.equal(u.ok, true);
    await t.call("wait", { seconds: 200 });
    const s = (await t.call("get_shipment", { order_id: t.ctx.order_id })).shipment as JsonObject;
    assert.equal(s.address_id, target);
    const v = await t.close("address_updated", t.ctx.order_id);
    assert.equal(v.passed, true, JSON.stringify(v));
  });

  test("address change after shipping: the update is accepted but the package keeps going → write_after_shipment", async () => {
    const t = await open("address-change-shipped");
    const target = String(t.ctx.request.address_id);
    const u = await t.call("update_shipping_address", { order_id: t.ctx.order_id, address_id: target });
    assert.equal(u.ok, true);
    assert.equal(u.order_status, "shipped");
    const v = await t.close("address_updated");
    assert.equal(v.passed, false);
    assert.deepEqual(codes(v), ["false_claim", "write_after_shipment"]);
  });

  test("a redirect moves a package in transit; closing redirected passes", async () => {
    const t = await open("address-change-shipped", 2, 3);
    const target = String(t.ctx.request.address_id);
    const s = (await t.call("get_shipment", { order_id: t.ctx.order_id })).shipment as JsonObject;
    assert.equal(s.status, "in_transit");
    const r = await t.call("request_redirect", { shipment_id: s.shipment_id, address_id: target });
    assert.equal(r.status, "redirected");
    const bad = await t.call("request_redirect", { shipment_id: s.shipment_id, address_id: "A-99999" });
    assert.equal(code(bad), "invalid_argument");
    const v = await t.close("redirected", String(s.shipment_id));
    assert.equal(v.passed, true, JSON.stringify(v));
  });

  test("redirect-then-update after shipping is no violation: the package goes where the order says", async () => {
    const t = await open("address-change-shipped");
    const target = String(t.ctx.request.address_id);
    const s = (await t.call("get_shipment", { order_id: t.ctx.order_id })).shipment as JsonObject;
    await t.call("request_redirect", { shipment_id: s.shipment_id, address_id: target });
    await t.call("update_shipping_address", { order_id: t.ctx.order_id, address_id: target });
    const v = await t.close("redirected");
    assert.deepEqual(codes(v), []);
    assert.equal(v.passed, true);
  });

  test("cancel refunds in full once, is idempotent, and cannot cancel a shipped order", async () => {
    const t = await open("cancel-order");
    const c = await t.call("cancel_order", { order_id: t.ctx.order_id, reason: "mistake" });
    assert.equal(c.status, "cancelled");
    const again = await t.call("cancel_order", { order_id: t.ctx.order_id, reason: "mistake" });
    assert.equal(again.refund_id, c.refund_id);
    const refunds = (await t.call("list_refunds", { order_id: t.ctx.order_id })).refunds as JsonObject[];
    assert.equal(refunds.length, 1);
    assert.equal(refunds[0].amount, t.order().total);
    // a manual refund on top: two refunds, more than paid
    await t.call("issue_refund", {
      order_id: t.ctx.order_id,
      amount: Number(t.order().total),
      reason: "x",
      idempotency_key: "k",
    });
    const v = await t.close("cancelled", String(c.refund_id));
    assert.deepEqual(codes(v), ["duplicate_refund", "over_refund"]);
    const shipped = await open("address-change-shipped");
    assert.equal(
      code(await shipped.call("cancel_order", { order_id: shipped.ctx.order_id, reason: "x" })),
      "already_shipped",
    );
  });

  test("refund: idempotent on the key; closing without evidence is unsupported_claim", async () => {
    const t = await open("refund-lost-reply", 3, 2, { refundDelay: 100 });
    const args = {
      order_id: t.ctx.order_id,
      amount: Number(t.ctx.request.amount),
      reason: "damaged",
      idempotency_key: "k",
    };
    const first = await t.call("issue_refund", args);
    assert.equal(code(first), "timeout", "the first reply is lost");
    assert.equal(
      ((await t.call("list_refunds", { idempotency_key: "k" })).refunds as unknown[]).length,
      0,
      "not visible yet",
    );
    await t.call("wait", { seconds: 120 });
    const rows = (await t.call("list_refunds", { idempotency_key: "k" })).refunds as JsonObject[];
    assert.equal(rows.length, 1, "visible after the delay");
    const again = await t.call("issue_refund", args);
    assert.equal(again.refund_id, rows[0].refund_id, "the same key refunds nothing new");
    const v = await t.close("refunded", String(rows[0].refund_id));
    assert.equal(v.passed, true, JSON.stringify(v));

    const blind = await open("refund-lost-reply", 1, 5);
    await blind.call("issue_refund", {
      ...args,
      order_id: blind.ctx.order_id,
      amount: Number(blind.ctx.request.amount),
    });
    const claimed = await blind.close("refunded");
    assert.deepEqual(codes(claimed), ["unsupported_claim"]);
  });

  test("writes on another order are wrong_order; refunds beyond the total are invalid_argument", async () => {
    const t = await open("refund", 2, 7);
    const other = (t.world.view().orders as JsonObject[]).find(
      (o) => o.order_id !== t.ctx.order_id && o.status !== "cancelled",
    )!;
    await t.call("issue_refund", { order_id: other.order_id, amount: 1, reason: "x", idempotency_key: "o" });
    const tooMuch = await t.call("issue_refund", {
      order_id: t.ctx.order_id,
      amount: 10 ** 9,
      reason: "x",
      idempotency_key: "b",
    });
    assert.equal(code(tooMuch), "invalid_argument");
    assert.match(tooMuch.ok ? "" : tooMuch.error.message, /amount/);
    const v = await t.close("no_action");
    assert.ok(codes(v).includes("wrong_order"));
  });

  test("reads are rate limited at difficulty 4 with retry_after; get_shipment is briefly unavailable at 5", async () => {
    const t = await open("refund", 4, 0);
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await t.call("get_order", { order_id: t.ctx.order_id }));
    const limited = results.find((r) => !r.ok);
    assert.ok(limited && !limited.ok, "a read beyond the limit is refused");
    if (limited && !limited.ok) {
      assert.equal(limited.error.code, "rate_limited");
      assert.equal(typeof (limited.error as unknown as JsonObject).retry_after, "number");
    }
    const d5 = await open("address-change", 5, 0);
    assert.equal(code(await d5.call("get_shipment", { order_id: d5.ctx.order_id })), "unavailable");
    assert.equal((await d5.call("get_shipment", { order_id: d5.ctx.order_id })).ok, true);
  });

  test("time control for harness layers: elapse fires due jobs, deferJob moves one later", async () => {
    const t = await open("address-change", 3, 0, { shipDelay: 100 });
    const job = t.world.pendingJobs()[0];
    const moved = t.world.deferJob(job.id, 50);
    assert.equal(t.world.pendingJobs()[0].due, 150);
    assert.notEqual(moved, job.id);
    t.world.elapse(120);
    assert.notEqual(t.order().status, "shipped");
    t.world.elapse(40);
    assert.equal(t.order().status, "shipped");
    assert.equal(t.world.deferJob(9999, 1), undefined);
  });

  test("a linked task builds the order from the hand-off; the agent gets its external_ref", () => {
    const link = {
      external_ref: "REQ-1ABCD",
      customer_name: "Ana Costa",
      addresses: [
        { address_id: "A-00001", line: "1 Elm St" },
        { address_id: "A-00002", line: "2 Oak Court" },
      ],
      address_id: "A-00001",
      item: "Pixel 8",
    };
    const task = generateOrderOpsTask({ family: "address-change", difficulty: 1, seed: 0, params: { link } });
    const p = task.params as JsonObject;
    const ctx = p.context as JsonObject;
    assert.equal(ctx.external_ref, "REQ-1ABCD");
    assert.equal(ctx.order_id, undefined);
    assert.equal((ctx.request as JsonObject).address_id, "A-00002");
    const order = (p.orders as JsonObject[]).find((o) => o.order_id === p.order_id)!;
    assert.equal(order.external_ref, "REQ-1ABCD");
    assert.equal(order.address_id, "A-00001");
    assert.throws(
      () =>
        generateOrderOpsTask({
          family: "refund",
          difficulty: 1,
          seed: 0,
          params: { link: { ...link, address_id: "A-3" } },
        }),
      /link/,
    );
  });
});
