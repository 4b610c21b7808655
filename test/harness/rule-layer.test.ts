/** The Rule layer: three pure hooks, blocked → coded error observation, no reward hook, read-only state. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Action, StepResult } from "../../src/core/contracts.ts";
import { blocked, type Rule } from "../../src/harness/rule.ts";
import { RuleLayer } from "../../src/harness/rule-layer.ts";
import { DeviceSupportWorld } from "../../src/worlds/device-support/world.ts";
import { OrderOpsWorld } from "../../src/worlds/order-ops/world.ts";
import { call, errCode, makeHarness, start, stepTool, worldTrace } from "./helpers.ts";

const harness = makeHarness();

describe("rule layer", () => {
  test("a blocked action never reaches the world and becomes an error observation with the rule's code", async () => {
    const rule: Rule = {
      id: "rule.test-block@1",
      params: {},
      filterAction: (action) =>
        action.tool === "get_approval"
          ? blocked("approvals are off", { code: "approvals_off" })
          : (action as Action),
    };
    const env = new RuleLayer(new DeviceSupportWorld(), rule);
    const ctx = await start(harness, env, "device-support@1", "approved-replacement");
    const r = await stepTool(env, "get_approval", { case_id: String(ctx.case_id) });
    assert.equal(r.observation.kind, "tool_result");
    if (r.observation.kind !== "tool_result") return;
    assert.deepEqual(r.observation.result, {
      ok: false,
      error: { code: "approvals_off", message: "approvals are off", retryable: false },
    });
    assert.deepEqual(r.info.layers, ["rule.test-block@1"]);
    assert.equal(worldTrace(env).length, 0, "the world never saw the blocked call");
    const passThrough = await stepTool(env, "get_case", { case_id: String(ctx.case_id) });
    assert.equal(passThrough.info.layers, undefined, "a call the rule did not touch lists no layer");
    assert.equal(worldTrace(env).length, 1);
  });

  test("hooks get a read-only, data-only state: mutating it throws", async () => {
    const attempts: string[] = [];
    const rule: Rule = {
      id: "rule.test-mutate@1",
      params: { x: 1 },
      filterAction(action, state) {
        for (const mutate of [
          () => {
            (state.world as Record<string, unknown>).now = 99;
          },
          () => {
            (state.params as Record<string, unknown>).x = 2;
          },
          () => {
            (action as Action).tool = "close_case";
          },
          () => {
            (state.world.cases as unknown[]).pop();
          },
        ]) {
          try {
            mutate();
            attempts.push("mutated");
          } catch (err) {
            attempts.push(err instanceof TypeError ? "refused" : "other");
          }
        }
        assert.deepEqual(JSON.parse(JSON.stringify(state)), state, "the state is plain data");
        return action as Action;
      },
    };
    const env = new RuleLayer(new DeviceSupportWorld(), rule);
    const ctx = await start(harness, env, "device-support@1", "approved-replacement");
    const before = env.stateHash();
    await call(env, "get_case", { case_id: String(ctx.case_id) });
    assert.deepEqual(attempts, ["refused", "refused", "refused", "refused"]);
    assert.notEqual(env.stateHash(), before);
    const cases = (env.view().cases as unknown[]).length;
    assert.ok(cases > 1, "the world's own data was not touched by the rule");
  });

  test("there is no reward hook: a transition's reward, termination and verdict stay the world's", async () => {
    const rule: Rule = {
      id: "rule.test-reward@1",
      params: {},
      modifyTransition: (_a, result) =>
        ({
          ...result,
          reward: 999,
          terminated: !result.terminated,
          info: { ...result.info, verdict: undefined },
        }) as StepResult,
    };
    const env = new RuleLayer(new OrderOpsWorld(), rule);
    const ctx = await start(harness, env, "order-ops@1", "refund");
    const mid = await stepTool(env, "get_order", { order_id: String(ctx.order_id) });
    assert.equal(mid.reward, 0);
    assert.equal(mid.terminated, false);
    const end = await stepTool(env, "close_ticket", {
      ticket_id: String(ctx.ticket_id),
      resolution: "no_action",
    });
    assert.equal(end.terminated, true);
    assert.ok(end.info.verdict, "the world's verdict is on the final step");
    assert.equal(end.reward, end.info.verdict?.score);
    assert.deepEqual(end.info.verdict, env.evaluate());
  });

  test("what the agent received reaches the world's trace (delivered), so evidence is judged on it", async () => {
    const rule: Rule = {
      id: "rule.test-rewrite@1",
      params: {},
      filterObservation: (obs) =>
        obs.kind === "tool_result" && obs.tool === "issue_refund"
          ? { ...obs, result: { ok: false, error: { code: "timeout", message: "lost", retryable: true } } }
          : obs,
    };
    const env = new RuleLayer(new OrderOpsWorld(), rule);
    const ctx = await start(harness, env, "order-ops@1", "refund");
    const request = ctx.request as { amount: number };
    const r = await call(env, "issue_refund", {
      order_id: String(ctx.order_id),
      amount: request.amount,
      reason: "damaged",
      idempotency_key: "k1",
    });
    assert.equal(errCode(r), "timeout");
    assert.equal(errCode(worldTrace(env)[0].result), "timeout", "the world recorded what the agent saw");
    const refund = (env.view().refunds as { refund_id: string }[])[0];
    assert.ok(refund, "the refund committed all the same");
    await call(env, "close_ticket", {
      ticket_id: String(ctx.ticket_id),
      resolution: "refunded",
      reference: refund.refund_id,
    });
    const v = env.evaluate();
    assert.ok(
      v.violations.some((x) => x.code === "unsupported_claim"),
      "a claim on a reply the agent never saw",
    );
  });

  test("a rule that changes the task observation changes the tools the agent is shown", async () => {
    const env = harness.build({
      world: "order-ops@1",
      layers: [{ id: "rule.disable-tool@1", params: { tool: "cancel_order" } }],
    });
    assert.ok(!env.spec.tools.some((t) => t.name === "cancel_order"), "before reset");
    const task = harness.registry
      .world("order-ops@1")
      .generateTask({ family: "refund", difficulty: 1, seed: 0 });
    const obs = await env.reset({ task, seed: 0 });
    assert.equal(obs.kind, "task");
    if (obs.kind === "task") assert.ok(!obs.tools.some((t) => t.name === "cancel_order"));
    assert.ok(!env.spec.tools.some((t) => t.name === "cancel_order"), "after reset");
    assert.equal(env.spec.tools.length, new OrderOpsWorld().spec.tools.length - 1);
  });
});
