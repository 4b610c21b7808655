/** The Setup layer: replayed actions after reset, in the trace marked setup, not agent steps. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { inspectionOf } from "../../src/core/capabilities.ts";
import type { Agent, TrialSpec } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { runTrial } from "../../src/runner/trial.ts";
import { ORDER_OPS_POLICIES } from "../../src/worlds/order-ops/index.ts";
import { makeHarness, worldTrace } from "./helpers.ts";

const harness = makeHarness();
const shipFirst = {
  world: "order-ops@1",
  layers: [{ id: "setup.replay@1", params: { actions: [{ tool: "wait", args: { seconds: 3600 } }] } }],
};

function spec(variant: unknown, family: string, agent: string, maxSteps = 50): TrialSpec {
  const normalized = harness.normalize(variant);
  return {
    schemaVersion: 1,
    id: `setup-test-${family}-${agent}`,
    experimentId: "setup-test",
    index: 0,
    world: "order-ops@1",
    variant: normalized as unknown as JsonObject,
    variantId: harness.variantId(variant),
    family,
    difficulty: 3,
    seed: 0,
    repeat: 0,
    agent: { id: agent, kind: "scripted", spec: agent },
    budget: { maxSteps },
  };
}

describe("setup layer", () => {
  test("replays its actions after reset; the agent starts where the weakness is, told what happened", async () => {
    const env = harness.build(shipFirst);
    const task = harness.registry
      .world("order-ops@1")
      .generateTask({ family: "address-change", difficulty: 3, seed: 0 });
    const obs = await env.reset({ task, seed: 0 });
    assert.equal(obs.kind, "task");
    if (obs.kind !== "task") return;
    const disclosed = obs.context.setup as JsonObject[];
    assert.equal(disclosed.length, 1);
    assert.equal(disclosed[0].tool, "wait");
    assert.equal(
      (inspectionOf(env).view().orders as JsonObject[]).find((o) => o.order_id === obs.context.order_id)
        ?.status,
      "shipped",
    );
    const steps = env.capabilities.setup?.setupSteps() ?? [];
    assert.equal(steps.length, 1);
    assert.equal(steps[0].info.setup, true);
    assert.equal(steps[0].action.tool, "wait");
    assert.equal(worldTrace(env).length, 1, "the replayed call is in the world's trace");
    assert.deepEqual(env.observe(), obs, "before the agent acts, observe() is the task");
  });

  test("through the runner: setup steps are in the record, marked setup, and not agent steps", async () => {
    const record = await runTrial(spec(shipFirst, "address-change", "careful"), {
      world: harness.registry.world("order-ops@1"),
      agent: ORDER_OPS_POLICIES.careful as Agent,
      environment: harness.environment,
    });
    assert.equal(record.outcome, "passed", record.reason);
    assert.equal(record.steps[0].setup, true);
    assert.equal(record.steps[0].action.tool, "wait");
    assert.equal(record.steps.filter((s) => s.setup).length, 1);
    assert.equal(record.stats.steps, record.steps.length - 1, "stats count agent steps only");
    assert.ok(record.steps.slice(1).every((s) => !s.setup));
    assert.equal(record.spec.variantId, harness.variantId(shipFirst));
    const closing = record.steps.at(-1);
    assert.equal(closing?.action.tool, "close_ticket");
    assert.equal(
      closing?.observation.kind === "tool_result" && (closing.observation.result as JsonObject).resolution,
      "redirected",
      "the order had shipped: only a redirect works",
    );
  });

  test("the step budget counts agent steps only", async () => {
    const record = await runTrial(spec(shipFirst, "address-change", "careful", 4), {
      world: harness.registry.world("order-ops@1"),
      agent: ORDER_OPS_POLICIES.careful as Agent,
      environment: harness.environment,
    });
    assert.equal(record.stats.steps, 3, `careful needs 3 steps here (${record.outcome}: ${record.reason})`);
    assert.equal(record.outcome, "passed");
  });

  test("a replayed action that fails is a config error (the variant does not fit the task)", async () => {
    const env = harness.build({
      world: "order-ops@1",
      layers: [
        {
          id: "setup.replay@1",
          params: { actions: [{ tool: "get_order", args: { order_id: "O-000000" } }] },
        },
      ],
    });
    const task = harness.registry
      .world("order-ops@1")
      .generateTask({ family: "refund", difficulty: 1, seed: 0 });
    await assert.rejects(env.reset({ task, seed: 0 }), (err: Error & { code?: string; fault?: string }) => {
      return err.code === "setup_failed" && err.fault === "config" && /not_found/.test(err.message);
    });
    const lenient = harness.build({
      world: "order-ops@1",
      layers: [
        {
          id: "setup.replay@1",
          params: { expect: "any", actions: [{ tool: "get_order", args: { order_id: "O-000000" } }] },
        },
      ],
    });
    const obs = await lenient.reset({ task, seed: 0 });
    assert.equal(obs.kind, "task");
  });
});
