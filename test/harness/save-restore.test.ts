/** Save/restore of a stacked variant: `{env: {type, state}, layers: [innermost … outermost]}` through registered factories. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { inspectionOf } from "../../src/core/capabilities.ts";
import type { Action, Environment } from "../../src/core/contracts.ts";
import { hashJson } from "../../src/core/hash.ts";
import { HARNESS_STACK_TYPE, type StackState } from "../../src/harness/layer.ts";
import { ORDER_OPS_POLICIES } from "../../src/worlds/order-ops/index.ts";
import { makeHarness } from "./helpers.ts";

const harness = makeHarness();

const stack = {
  world: "order-ops@1",
  layers: [
    { id: "rule.stale-read@1", params: { tool: "get_shipment", seconds: 400 } },
    { id: "setup.replay@1", params: { actions: [{ tool: "wait", args: { seconds: 100 } }] } },
    { id: "rule.rate-limit@1", params: { tools: ["get_shipment"], limit: 2, window: 300 } },
    { id: "rule.delay-job@1", params: { seconds: 50 } },
    { id: "rule.lose-reply-after-commit@1", params: { tool: "update_shipping_address" } },
    { id: "rule.latency@1", params: { tools: ["get_order"], seconds: 30 } },
  ],
};

/** The careful policy's actions on a task, replayed through the variant (with a couple of extra reads). */
async function actions(env: Environment, family: string): Promise<Action[]> {
  const task = harness.registry.world("order-ops@1").generateTask({ family, difficulty: 3, seed: 5 });
  let obs = await env.reset({ task, seed: 5, episodeId: "e" });
  const session = ORDER_OPS_POLICIES.careful.start({
    episodeId: "t",
    samplingSeed: 0,
    world: "order-ops@1",
    instruction: "",
    tools: [],
  });
  const out: Action[] = [];
  for (let i = 0; i < 40; i++) {
    const a = await (await session).act(obs);
    const action = { tool: a.tool, args: a.args, callId: `a${i}` };
    out.push(action);
    const r = await env.step(action);
    obs = r.observation;
    if (r.terminated) break;
  }
  return out;
}

describe("save and restore of a stacked variant", () => {
  for (const family of ["address-change", "refund"]) {
    test(`${family}: restore at every step and continue → identical results, verdict and state`, async () => {
      const script = await actions(harness.build(stack), family);
      assert.ok(script.length >= 2);
      const task = harness.registry.world("order-ops@1").generateTask({ family, difficulty: 3, seed: 5 });
      for (let cut = 0; cut < script.length; cut++) {
        const original = harness.build(stack);
        await original.reset({ task, seed: 5, episodeId: "e" });
        for (const a of script.slice(0, cut)) await original.step(structuredClone(a));
        const saved = harness.save(original);
        assert.equal(saved.type, HARNESS_STACK_TYPE);
        const doc = saved.state as unknown as StackState;
        assert.equal(doc.env.type, "order-ops@1");
        assert.deepEqual(
          doc.layers.map((l) => l.id),
          stack.layers.map((l) => l.id),
          "layers innermost … outermost",
        );
        const wire = JSON.parse(JSON.stringify(saved));
        assert.deepEqual(wire, saved, "plain JSON");
        const frozen = hashJson(saved);
        const restored = harness.registry.restore(wire);
        assert.equal(restored.spec.id, original.spec.id, "the restored stack has the variant id");
        assert.equal(restored.spec.id, harness.variantId(stack));
        assert.equal(
          inspectionOf(restored).stateHash(),
          inspectionOf(original).stateHash(),
          `cut ${cut}: state hash`,
        );
        assert.deepEqual(restored.observe(), original.observe(), `cut ${cut}: observe()`);
        for (const a of script.slice(cut)) {
          const x = await original.step(structuredClone(a));
          const y = await restored.step(structuredClone(a));
          assert.deepEqual(y, x, `cut ${cut}: step ${a.tool} differs after restore`);
          if (x.terminated) break;
        }
        assert.deepEqual(restored.evaluate(), original.evaluate());
        assert.equal(hashJson(saved), frozen, "continuing did not change the saved document");
      }
    });
  }

  test("every layer restores through its registered factory (the registry knows each layer id)", () => {
    const registry = harness.registry;
    const bad = { type: "rule.nope@1", state: {} } as const;
    assert.throws(
      () => registry.restore(bad),
      (err: Error & { code?: string }) => err.code === "unknown_state_type",
    );
    for (const id of [...stack.layers.map((l) => l.id), "link@1", HARNESS_STACK_TYPE]) {
      // a registered type: restoring junk fails inside the factory, not for want of one
      assert.throws(
        () => registry.restore({ type: id, state: null } as never),
        (err: Error & { code?: string }) => err.code !== "unknown_state_type",
        id,
      );
    }
  });
});
