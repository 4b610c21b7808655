/**
 * The conformance checks run on a harnessed variant (a factory building the stack, restored through
 * the gym's registry): every check is checkable there, a well-behaved stack passes, and a rule that
 * keeps state of its own (outside the layer's saved state) is caught.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { z } from "zod";
import { defaultGym } from "../../src/gym/index.ts";
import { blocked, defineRule } from "../../src/harness/index.ts";
import {
  assertConformant,
  type CheckOptions,
  checkEnvironment,
  formatReport,
} from "../../src/testing/index.ts";

const WORLD = "device-support@1";
/** A Setup layer (the episode starts 5 s in) under a 429-like rate limit on two tools. */
const VARIANT = {
  world: WORLD,
  layers: [
    { id: "setup.replay@1", params: { actions: [{ tool: "wait", args: { seconds: 5 } }] } },
    {
      id: "rule.rate-limit@1",
      params: { tools: ["get_approval", "find_replacements"], limit: 2, window: 60 },
    },
  ],
};
const COVERAGE: CheckOptions = {
  families: ["needs-approval", "lost-reply", "delayed-receipt"],
  seeds: [0],
  difficulties: [1, 4],
  fuzzPerTool: 50,
  expectBackgroundJobs: true,
};

/** Breaks the rule contract: it counts calls in a closure, which neither saving nor reset sees. */
const everyThird = defineRule({
  id: "rule.every-third@1",
  description: "refuses every third call (counted outside the rule state: a broken rule)",
  params: z.object({}).strict(),
  create: (params) => {
    let calls = 0;
    return {
      id: "rule.every-third@1",
      params,
      filterAction: (action) => (++calls % 3 === 0 ? blocked("every third call") : { ...action }),
    };
  },
});

describe("conformance of a harnessed variant", () => {
  test(`${WORLD} under a setup replay and a rate limit: everything is checkable, and passes`, async () => {
    const gym = defaultGym();
    const report = await checkEnvironment(() => gym.harness.build(VARIANT), {
      ...COVERAGE,
      world: gym.world(WORLD),
      restore: gym.registry,
    });
    assert.equal(report.environment, gym.harness.variantId(VARIANT));
    assert.equal(report.world, WORLD);
    assert.deepEqual(report.capabilities, {
      inspection: true,
      delivery: true,
      timeControl: true,
      setup: true,
      admissible: true,
      restore: true,
    });
    assert.equal(report.counts.not_checkable, 0);
    assertConformant(report);
    // the rate limit is in the path: it refuses most bad calls of the tools it limits, and no other
    const refusedByLayer = (tool: string) =>
      report.checks
        .find((c) => c.name === `bad input: 50 malformed argument objects to ${tool}`)
        ?.details.some((d) => /refused by a harness layer/.test(d));
    assert.equal(refusedByLayer("get_approval"), true);
    assert.equal(refusedByLayer("find_replacements"), true);
    assert.equal(refusedByLayer("get_case"), false);
  });

  test("a rule that keeps state outside the layer fails save/restore and reset", async () => {
    const gym = defaultGym({ rules: [everyThird] });
    const variant = { world: WORLD, layers: [{ id: everyThird.id, params: {} }] };
    const report = await checkEnvironment(() => gym.harness.build(variant), {
      ...COVERAGE,
      families: ["needs-approval", "lost-reply"],
      fuzzPerTool: 10,
      world: gym.world(WORLD),
      restore: gym.registry,
    });
    const failed = report.checks.filter((c) => c.status === "failed").map((c) => c.kind);
    assert.ok(failed.includes("save-restore"), formatReport(report));
    assert.ok(failed.includes("reset"), formatReport(report));
    assert.ok(!failed.includes("determinism"), "each run starts from a fresh stack, so runs agree");
    assert.throws(() => assertConformant(report), { code: "not_conformant" });
  });
});
