/**
 * The verifier is frozen: layers hold no verifier, `evaluate()` reaches the base world's, and for a
 * fixed final state no stack of (Setup and Rule) layers changes the verdict.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Agent, Environment } from "../../src/core/contracts.ts";
import type { JsonValue } from "../../src/core/json.ts";
import { Rng } from "../../src/core/rng.ts";
import { Layer } from "../../src/harness/layer.ts";
import { LinkLayer } from "../../src/harness/link-layer.ts";
import { RuleLayer } from "../../src/harness/rule-layer.ts";
import { SetupLayer } from "../../src/harness/setup-layer.ts";
import type { LayerSpec } from "../../src/harness/variant.ts";
import { makeHarness } from "./helpers.ts";

const harness = makeHarness();

/** Layers that fit each world (params valid for it). */
const POOL: Record<string, LayerSpec[]> = {
  "order-ops@1": [
    { id: "rule.lose-reply-after-commit@1", params: { tool: "issue_refund" } },
    { id: "rule.lose-reply-after-commit@1", params: { tool: "update_shipping_address", times: 3 } },
    { id: "rule.timeout-before-commit@1", params: { tool: "cancel_order" } },
    { id: "rule.rate-limit@1", params: { limit: 1, window: 30 } },
    { id: "rule.unavailable@1", params: { tools: ["list_refunds", "get_order"], until: 50 } },
    { id: "rule.stale-read@1", params: { tool: "get_shipment", seconds: 120 } },
    { id: "rule.delay-job@1", params: { seconds: 77 } },
    { id: "rule.hide-field@1", params: { fields: ["order.status", "refunds.amount"] } },
    { id: "rule.disable-tool@1", params: { tool: "find_orders" } },
    { id: "rule.latency@1", params: { seconds: 13 } },
    { id: "setup.replay@1", params: { actions: [{ tool: "wait", args: { seconds: 30 } }] } },
  ],
  "device-support@1": [
    { id: "rule.lose-reply-after-commit@1", params: { tool: "create_replacement" } },
    { id: "rule.timeout-before-commit@1", params: { tool: "create_replacement" } },
    { id: "rule.rate-limit@1", params: { tools: ["get_approval"], limit: 1, window: 60 } },
    { id: "rule.unavailable@1", params: { tools: ["find_replacements"] } },
    { id: "rule.stale-read@1", params: { tool: "find_replacements", seconds: 300 } },
    { id: "rule.hide-field@1", params: { fields: ["approval.conditions"] } },
    { id: "rule.disable-tool@1", params: { tool: "escalate" } },
    { id: "setup.replay@1", params: { actions: [{ tool: "wait", args: { seconds: 5 } }] } },
  ],
};

const EPISODES: [string, string, string][] = [
  ["order-ops@1", "refund-lost-reply", "careful"],
  ["order-ops@1", "refund-lost-reply", "new-key-retry"],
  ["order-ops@1", "address-change-shipped", "blind-update"],
  ["order-ops@1", "cancel-order", "double-refund"],
  ["device-support@1", "lost-reply", "claims-success"],
  ["device-support@1", "approval-revised", "cautious"],
  ["device-support@1", "needs-approval", "skip-approval"],
];

/** Plays a policy to the end on the bare world; returns the saved final state. */
async function finalState(world: string, family: string, policy: string): Promise<JsonValue> {
  const def = harness.registry.world(world);
  const env = def.create();
  const task = def.generateTask({ family, difficulty: 3, seed: 11 });
  let obs = await env.reset({ task, seed: 11 });
  const session = await (def.policies[policy] as Agent).start({
    episodeId: "t",
    samplingSeed: 0,
    world,
    instruction: "",
    tools: [],
  });
  for (let i = 0; i < 200; i++) {
    const a = await session.act(obs);
    const r = await env.step({ tool: a.tool, args: a.args, callId: `s${i}` });
    obs = r.observation;
    if (r.terminated) break;
  }
  return env.saveState();
}

describe("the frozen verifier", () => {
  test("Setup and Rule layers do not define evaluate(); only Link combines (AND) its worlds' verdicts", () => {
    for (const cls of [RuleLayer, SetupLayer]) {
      assert.ok(
        !Object.getOwnPropertyNames(cls.prototype).includes("evaluate"),
        `${cls.name} overrides evaluate`,
      );
      assert.equal(cls.prototype.evaluate, Layer.prototype.evaluate);
    }
    assert.ok(Object.getOwnPropertyNames(LinkLayer.prototype).includes("evaluate"));
  });

  for (const [world, family, policy] of EPISODES) {
    test(`${world} ${family} (${policy}): 40 random stacks over the final state give the same verdict`, async () => {
      const saved = await finalState(world, family, policy);
      const bare = harness.registry.restore({ type: world, state: saved });
      const expected = bare.evaluate();
      const rng = Rng.seeded(7, `${world}/${family}/${policy}`);
      for (let i = 0; i < 40; i++) {
        const layers = Array.from({ length: rng.int(1, 5) }, () => rng.pick(POOL[world]));
        let env: Environment = harness.registry.restore({ type: world, state: saved });
        for (const layer of layers)
          env = harness.wrap(env, harness.normalize({ world, layers: [layer] }).layers[0]);
        const where = layers.map((l) => l.id).join(" > ");
        assert.deepEqual(env.evaluate(), expected, `stack ${where} changed the verdict`);
        assert.equal(env.spec.verifier, bare.spec.verifier, `stack ${where} changed the verifier id`);
        // and through a saved stacked document, restored by the registry
        const restored = harness.restore(harness.save(env));
        assert.deepEqual(restored.evaluate(), expected, `restored stack ${where} changed the verdict`);
      }
    });
  }

  test("a layer cannot reach a verifier: nothing it holds is one", () => {
    const env = harness.build({ world: "order-ops@1", layers: POOL["order-ops@1"] });
    for (let e: unknown = env; e instanceof Layer; e = e.inner) {
      for (const [key, value] of Object.entries(e as object)) {
        if (key === "inner") continue;
        if (key === "capabilities") {
          // what a layer declares is itself (it forwards inward): no other object hides in there
          for (const held of Object.values(value as object)) assert.equal(held, e);
          continue;
        }
        assert.ok(
          typeof value !== "function" || !/verif/i.test(value.name),
          `${(e as Layer).info.id}.${key} is a verifier`,
        );
        const text = JSON.stringify(value ?? null) ?? "";
        assert.ok(!text.includes("verify."), `${(e as Layer).info.id}.${key} names a verifier`);
      }
    }
  });
});
