/**
 * The admissible-actions check of the one checker (`admissible`, in the conformance preset): it
 * passes a good list, catches each planted way a list can be broken (non-deterministic, past 64,
 * schema-invalid, a hidden value offered before an observation showed it, a known-good action
 * missing), is `not_checkable` with its reason where the capability is not declared, and every
 * built-in harness layer over device-support@1 passes it (each built-in world passes it in its own
 * conformance test).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { defaultGym } from "../../src/gym/index.ts";
import { type CheckOptions, checkEnvironment, formatReport } from "../../src/testing/index.ts";
import { type AdmissibleBug, plantedToy } from "../support/admissible-planted.ts";

const ONLY: CheckOptions = { kinds: ["admissible"], seeds: [0, 1], difficulties: [1, 3] };

/** The admissible check over device-support@1 under one built-in layer. */
function layerReport(layer: { id: string; params: object }) {
  const gym = defaultGym();
  const world = gym.world("device-support@1");
  const variant = { world: world.id, layers: [layer] };
  return checkEnvironment(() => gym.harness.build(variant), {
    kinds: ["admissible"],
    families: ["needs-approval", "lost-reply"],
    seeds: [0],
    difficulties: [1, 3],
    world,
    restore: gym.registry,
  });
}

async function planted(bug?: AdmissibleBug) {
  const { world, factory } = plantedToy(bug);
  return checkEnvironment(factory, { ...ONLY, world });
}

describe("the admissible-actions check", () => {
  test("a good list passes; a world without the capability is not checkable, with the reason", async () => {
    const good = await planted();
    assert.equal(good.ok, true, formatReport(good));
    assert.equal(good.capabilities.admissible, true);
    assert.deepEqual(
      good.checks.map((c) => [c.kind, c.status]),
      [
        ["admissible", "passed"],
        ["admissible", "passed"],
      ],
    );
    const none = await planted("undeclared");
    assert.equal(none.capabilities.admissible, false);
    assert.ok(none.checks.every((c) => c.status === "not_checkable"));
    assert.match(none.checks[0].reason ?? "", /declares no admissible actions/);
  });

  const CAUGHT: [AdmissibleBug, RegExp][] = [
    ["nondeterministic", /asked twice, two lists/],
    ["too-long", /71 actions \(at most 64\)/],
    ["schema-invalid", /add \{"n":9\} does not validate/],
    ["hidden-leak", /offers the task's hidden "zebra-/],
    ["misses-known-good", /the known-good add \{"n":5\} .* is not in the list/],
  ];
  for (const [bug, message] of CAUGHT) {
    test(`catches a planted list: ${bug}`, async () => {
      const report = await planted(bug);
      assert.equal(report.ok, false);
      const failed = report.checks.filter((c) => c.status === "failed");
      assert.ok(failed.length > 0);
      assert.ok(
        failed.some((c) => c.details.some((d) => message.test(d))),
        `${bug}: ${formatReport(report)}`,
      );
    });
  }

  test("every built-in harness layer over device-support@1 keeps the list conformant", async () => {
    const layers = [
      { id: "setup.replay@1", params: { actions: [{ tool: "wait", args: { seconds: 5 } }] } },
      { id: "rule.lose-reply-after-commit@1", params: { tool: "create_replacement" } },
      {
        id: "rule.rate-limit@1",
        params: { tools: ["get_approval", "find_replacements"], limit: 2, window: 60 },
      },
      { id: "rule.unavailable@1", params: { tools: ["find_replacements"], from: 0, until: 30 } },
      { id: "rule.stale-read@1", params: { tool: "get_approval", seconds: 400 } },
      { id: "rule.delay-job@1", params: { seconds: 50 } },
      { id: "rule.hide-field@1", params: { fields: ["case.customer"], tools: ["get_case"] } },
      { id: "rule.disable-tool@1", params: { tool: "send_message", hide: true } },
      { id: "rule.latency@1", params: { tools: ["get_case"], seconds: 30 } },
      {
        id: "link@1",
        params: {
          world: "order-ops@1",
          family: "address-change-shipped",
          handoff: "handoff.replacement-order@1",
        },
      },
    ];
    const failures: string[] = [];
    for (const layer of layers) {
      const report = await layerReport(layer);
      assert.equal(report.capabilities.admissible, true, `${layer.id} declares the list`);
      if (!report.ok) failures.push(`${layer.id}:\n${formatReport(report, { passed: false })}`);
    }
    assert.deepEqual(failures, []);
  });

  // Found by the check (issue 25): a call the layer answers itself (a timeout before the commit)
  // never reaches the world, so the world's list did not know the idempotency key the agent sent,
  // and the known-good recovery (find_replacements by that key) was missing. The layer now hands its
  // blocked calls inward (`unseen`).
  test("rule.timeout-before-commit@1 keeps the list conformant", async () => {
    const report = await layerReport({
      id: "rule.timeout-before-commit@1",
      params: { tool: "create_replacement" },
    });
    assert.equal(report.ok, true, formatReport(report, { passed: false }));
  });
});
