/** The Link layer: task B of another world after task A, declared hand-off, verdict = A AND B. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Agent, Observation, TrialSpec, Verdict } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { combineVerdicts } from "../../src/harness/combine-verdicts.ts";
import type { LinkLayer } from "../../src/harness/link-layer.ts";
import { runTrial } from "../../src/runner/trial.ts";
import { SUPPORT_ORDERS_POLICIES, supportOrders } from "../../src/worlds/support-orders/index.ts";
import { call, makeHarness } from "./helpers.ts";

const harness = makeHarness();
const linkVariant = {
  world: "device-support@1",
  layers: [
    {
      id: "link@1",
      params: {
        world: "order-ops@1",
        family: "address-change-shipped",
        handoff: "handoff.replacement-order@1",
      },
    },
  ],
};

const verdict = (passed: boolean, codes: string[] = [], step = 3): Verdict => ({
  passed,
  score: passed ? 1 : 0.5,
  checks: [{ name: "c", passed, detail: "" }],
  violations: codes.map((code) => ({ code, step, detail: "d" })),
  verifier: "verify.x@1",
});

/** Plays device-support's approved-replacement by hand and closes the case. */
async function playA(env: LinkLayer, caseId: string): Promise<Observation> {
  const got = (await call(env, "get_case", { case_id: caseId })) as JsonObject;
  const created = (await call(env, "create_replacement", {
    case_id: caseId,
    model: String((got.device as JsonObject).model),
    address_id: String(((got.customer as JsonObject).addresses as JsonObject[])[0].address_id),
    idempotency_key: "k",
  })) as JsonObject;
  const r = await env.step({
    tool: "close_case",
    args: { case_id: caseId, resolution: "replacement_created", reference: String(created.request_id) },
    callId: "close-a",
  });
  assert.equal(r.terminated, false, "closing A does not end a linked episode");
  assert.ok(r.info.link, "the step says the link moved on");
  return r.observation;
}

describe("link layer", () => {
  test("combineVerdicts: A.passed AND B.passed, both parts' checks and violations", () => {
    const both = combineVerdicts([
      { world: "a@1", verifier: "verify.a@1", verdict: verdict(true), stepOffset: 0 },
      { world: "b@1", verifier: "verify.b@1", verdict: verdict(true), stepOffset: 10 },
    ]);
    assert.equal(both.passed, true);
    assert.deepEqual(
      both.checks.map((c) => c.name),
      ["a@1:c", "b@1:c"],
    );
    assert.equal(both.verifier, "verify.a@1+verify.b@1");
    for (const [a, b] of [
      [true, false],
      [false, true],
      [false, false],
    ]) {
      const v = combineVerdicts([
        { world: "a@1", verifier: "va", verdict: verdict(a, a ? [] : ["dup"]), stepOffset: 0 },
        { world: "b@1", verifier: "vb", verdict: verdict(b, b ? [] : ["claim"]), stepOffset: 10 },
      ]);
      assert.equal(v.passed, false);
      assert.deepEqual(
        v.violations.map((x) => x.code),
        [...(a ? [] : ["dup"]), ...(b ? [] : ["claim"])],
      );
      if (!b) assert.equal(v.violations.at(-1)?.step, 13, "B's steps are offset by A's");
    }
    const missing = combineVerdicts([
      { world: "a@1", verifier: "va", verdict: verdict(true), stepOffset: 0 },
      { world: "b@1", verifier: "vb", stepOffset: 2, missing: "no hand-off" },
    ]);
    assert.equal(missing.passed, false);
    assert.deepEqual(missing.checks.at(-1), { name: "b@1:reached", passed: false, detail: "no hand-off" });
  });

  test("a declarative link variant: A's end hands the replacement to B; the verdict needs both", async () => {
    const env = harness.build(linkVariant) as LinkLayer;
    const task = harness.registry
      .world("device-support@1")
      .generateTask({ family: "approved-replacement", difficulty: 1, seed: 3 });
    const first = await env.reset({ task, seed: 3 });
    const caseId = String(first.kind === "task" && first.context.case_id);
    const obsB = await playA(env, caseId);
    assert.equal(obsB.kind, "task", "the agent's next observation is B's task");
    if (obsB.kind !== "task") return;
    const handoff = obsB.context.handoff as JsonObject;
    assert.equal(handoff.case_id, caseId);
    const requestId = String(handoff.request_id);
    assert.match(requestId, /^REQ-/);
    assert.equal(obsB.context.external_ref, requestId, "B's order is found by the hand-off's request id");
    assert.ok(
      obsB.tools.some((t) => t.name === "request_redirect"),
      "B's tools",
    );
    assert.deepEqual(env.spec.tools, obsB.tools);
    assert.equal(env.spec.verifier, "verify.device-support@1+verify.order-ops@1");
    const mid = env.evaluate();
    assert.equal(mid.passed, false, "B not done yet");
    assert.ok(mid.checks.some((c) => c.name === "device-support@1:case_closed" && c.passed));

    const orders = (await call(env, "find_orders", { external_ref: requestId })) as JsonObject;
    const orderId = String((orders.orders as JsonObject[])[0].order_id);
    const ticket = String(obsB.context.ticket_id);
    const target = String((obsB.context.request as JsonObject).address_id);
    // the flaw: update the order record although it shipped
    await call(env, "update_shipping_address", { order_id: orderId, address_id: target });
    const end = await env.step({
      tool: "close_ticket",
      args: { ticket_id: ticket, resolution: "address_updated" },
      callId: "x",
    });
    assert.equal(end.terminated, true);
    const v = end.info.verdict!;
    assert.deepEqual(v, env.evaluate());
    assert.equal(v.passed, false);
    assert.ok(
      v.checks.some((c) => c.name === "device-support@1:replacement_count" && c.passed),
      "A's checks",
    );
    assert.ok(
      v.checks.some((c) => c.name === "order-ops@1:destination" && !c.passed),
      "B's checks",
    );
    const codes = v.violations.map((x) => x.code).sort();
    assert.deepEqual(codes, ["false_claim", "write_after_shipment"], "B's violations");
    assert.ok(
      v.violations.every((x) => x.step >= 3),
      "B's violation steps are offset by A's calls",
    );
    assert.ok(end.observation.kind === "tool_result" && end.observation.now > 3, "B's clock continues A's");
  });

  test("when A leaves nothing to hand over, the episode ends there and fails", async () => {
    const env = harness.build(linkVariant);
    const task = harness.registry
      .world("device-support@1")
      .generateTask({ family: "approved-replacement", difficulty: 1, seed: 3 });
    const first = await env.reset({ task, seed: 3 });
    const caseId = String(first.kind === "task" && first.context.case_id);
    const r = await env.step({
      tool: "close_case",
      args: { case_id: caseId, resolution: "no_action" },
      callId: "c",
    });
    assert.equal(r.terminated, true);
    const v = r.info.verdict!;
    assert.equal(v.passed, false);
    const reached = v.checks.find((c) => c.name === "order-ops@1:reached");
    assert.ok(reached && !reached.passed && /no replacement was committed/.test(reached.detail));
  });

  test("a hand-off must connect the variant's worlds", () => {
    assert.throws(
      () => harness.build({ world: "order-ops@1", layers: [{ ...linkVariant.layers[0] }] }),
      (err: Error & { code?: string }) => err.code === "bad_handoff",
    );
    assert.throws(
      () =>
        harness.build({
          world: "device-support@1",
          layers: [{ id: "link@1", params: { ...linkVariant.layers[0].params, handoff: "handoff.nope@1" } }],
        }),
      (err: Error & { code?: string }) => err.code === "unknown_handoff",
    );
  });

  test("support-orders@1 runs linked policies: the verdict is the AND of both worlds' verifiers", async () => {
    const run = (family: string, policy: string) => {
      const spec: TrialSpec = {
        schemaVersion: 1,
        id: `link-${family}-${policy}`,
        experimentId: "link-test",
        index: 0,
        world: supportOrders.id,
        family,
        difficulty: 2,
        seed: 1,
        repeat: 0,
        agent: { id: policy, kind: "scripted", spec: policy },
        budget: { maxSteps: 200 },
      };
      return runTrial(spec, { world: supportOrders, agent: SUPPORT_ORDERS_POLICIES[policy] as Agent });
    };
    const good = await run("replacement-shipped-redirect", "careful");
    assert.equal(good.outcome, "passed", good.reason);
    assert.equal(good.verdict?.verifier, "verify.device-support@1+verify.order-ops@1");
    const taskIndex = good.steps.findIndex((s) => s.observation.kind === "task");
    assert.ok(taskIndex > 0, "B's task arrives as an observation in the middle of the episode");
    const aOnlyBad = await run("lost-reply-address-change", "claims-success");
    assert.equal(aOnlyBad.outcome, "violated");
    assert.ok(
      aOnlyBad.verdict?.violations.every((v) => v.detail.startsWith("device-support@1")),
      "A's violation",
    );
    assert.ok(
      aOnlyBad.verdict?.checks.some((c) => c.name.startsWith("order-ops@1:") && c.passed),
      "B was played",
    );
    const bOnlyBad = await run("replacement-shipped-redirect", "blind-update");
    assert.equal(bOnlyBad.outcome, "violated");
    assert.ok(
      bOnlyBad.verdict?.violations.every((v) => v.detail.startsWith("order-ops@1")),
      "B's violation",
    );
  });
});
