/** Stacking: the order of layers is recorded, changes the variant id, and changes what happens. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { inspectionOf } from "../../src/core/capabilities.ts";
import type { Environment } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import type { Layer, StackState } from "../../src/harness/layer.ts";
import { errCode, makeHarness, start } from "./helpers.ts";

const harness = makeHarness();
const timeout = {
  id: "rule.timeout-before-commit@1",
  params: { tool: "issue_refund", onlyIfItWouldSucceed: false },
};
const limit = { id: "rule.rate-limit@1", params: { tools: ["issue_refund"], limit: 1, window: 600 } };

async function twoRefundCalls(env: Environment) {
  const ctx = await start(harness, env, "order-ops@1", "refund");
  const args = {
    order_id: String(ctx.order_id),
    amount: Number((ctx.request as JsonObject).amount),
    reason: "x",
    idempotency_key: "k",
  };
  const first = await env.step({ tool: "issue_refund", args, callId: "1" });
  const second = await env.step({ tool: "issue_refund", args, callId: "2" });
  const r = (x: typeof first) => (x.observation.kind === "tool_result" ? x.observation.result : undefined);
  return {
    codes: [errCode(r(first)!), errCode(r(second)!)],
    layers: [first.info.layers, second.info.layers],
    env,
  };
}

describe("stacking order", () => {
  test("order is part of the variant id; names are not; params are", () => {
    const a = harness.variantId({ world: "order-ops@1", layers: [timeout, limit] });
    const b = harness.variantId({ world: "order-ops@1", layers: [limit, timeout] });
    assert.notEqual(a, b);
    assert.equal(harness.variantId({ world: "order-ops@1", layers: [timeout, limit], name: "x" }), a);
    assert.equal(
      harness.variantId({ world: "order-ops", layers: [timeout, limit] }),
      a,
      "world id is canonical",
    );
    const other = harness.variantId({
      world: "order-ops@1",
      layers: [timeout, { ...limit, params: { ...limit.params, limit: 2 } }],
    });
    assert.notEqual(other, a);
    assert.notEqual(
      harness.variantId({ world: "device-support@1", layers: [] }),
      harness.variantId("order-ops@1"),
    );
  });

  test("the same two rules in the two orders do different things", async () => {
    // timeout inside, rate limit outside: call 1 passes the limit (counted) and times out; call 2 is rate limited
    const limitOutside = await twoRefundCalls(
      harness.build({ world: "order-ops@1", layers: [timeout, limit] }),
    );
    assert.deepEqual(limitOutside.codes, ["timeout", "rate_limited"]);
    assert.equal((inspectionOf(limitOutside.env).view().refunds as unknown[]).length, 0);
    // rate limit inside, timeout outside: call 1 times out before reaching the limit; call 2 commits
    const timeoutOutside = await twoRefundCalls(
      harness.build({ world: "order-ops@1", layers: [limit, timeout] }),
    );
    assert.deepEqual(timeoutOutside.codes, ["timeout", undefined]);
    assert.equal((inspectionOf(timeoutOutside.env).view().refunds as unknown[]).length, 1);
  });

  test("the stack records its order: info.layers (outermost last) and the saved layers (innermost first)", async () => {
    const hide = { id: "rule.hide-field@1", params: { fields: ["status"], tools: ["issue_refund"] } };
    const lose = { id: "rule.lose-reply-after-commit@1", params: { tool: "issue_refund" } };
    const env = harness.build({ world: "order-ops@1", layers: [lose, hide] }) as Layer;
    const ctx = await start(harness, env, "order-ops@1", "refund");
    const args = { order_id: String(ctx.order_id), amount: 100, reason: "x", idempotency_key: "k" };
    const first = await env.step({ tool: "issue_refund", args, callId: "first" });
    assert.deepEqual(
      first.info.layers,
      ["rule.lose-reply-after-commit@1"],
      "hide-field got an error: nothing to hide",
    );
    const second = await env.step({ tool: "issue_refund", args, callId: "again" });
    assert.deepEqual(second.info.layers, ["rule.hide-field@1"], "only the outer rule acted on the retry");
    const saved = env.saveState() as unknown as StackState;
    assert.deepEqual(
      saved.layers.map((l) => l.id),
      ["rule.lose-reply-after-commit@1", "rule.hide-field@1"],
    );
    assert.equal(saved.env.type, "order-ops@1");
    const both = harness.build({ world: "order-ops@1", layers: [hide, lose] });
    const c2 = await start(harness, both, "order-ops@1", "refund");
    const r = await both.step({
      tool: "issue_refund",
      args: { ...args, order_id: String(c2.order_id) },
      callId: "1",
    });
    assert.deepEqual(
      r.info.layers,
      ["rule.hide-field@1", "rule.lose-reply-after-commit@1"],
      "the other order: hide-field (inner) trimmed the success, then lose-reply (outer) replaced it",
    );
  });
});
