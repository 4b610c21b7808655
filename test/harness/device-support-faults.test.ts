/**
 * device-support's fault families, expressed as rules: a fault-free family plus a fault rule catches
 * the same policies, with the same violation codes, as the family that builds the fault in natively.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Agent, TrialSpec } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { runTrial } from "../../src/runner/trial.ts";
import { DEVICE_SUPPORT_POLICIES, deviceSupport } from "../../src/worlds/device-support/index.ts";
import { makeHarness } from "./helpers.ts";

const harness = makeHarness();

const AS_RULES: { native: string; base: string; layers: { id: string; params: JsonObject }[] }[] = [
  {
    native: "lost-reply",
    base: "approved-replacement",
    layers: [{ id: "rule.lose-reply-after-commit@1", params: { tool: "create_replacement" } }],
  },
  {
    native: "timeout-before-commit",
    base: "approved-replacement",
    layers: [{ id: "rule.timeout-before-commit@1", params: { tool: "create_replacement" } }],
  },
];

async function play(family: string, policy: string, seed: number, variant?: unknown) {
  const spec: TrialSpec = {
    schemaVersion: 1,
    id: `ds-faults-${family}-${policy}-${seed}`,
    experimentId: "ds-faults",
    index: 0,
    world: deviceSupport.id,
    ...(variant
      ? {
          variant: harness.normalize(variant) as unknown as JsonObject,
          variantId: harness.variantId(variant),
        }
      : {}),
    family,
    difficulty: 1,
    seed,
    repeat: 0,
    agent: { id: policy, kind: "scripted", spec: policy },
    budget: { maxSteps: 200 },
  };
  const r = await runTrial(spec, {
    world: deviceSupport,
    agent: DEVICE_SUPPORT_POLICIES[policy] as Agent,
    environment: harness.environment,
  });
  return { outcome: r.outcome, codes: [...new Set(r.verdict?.violations.map((v) => v.code))].sort() };
}

describe("device-support faults as rules", () => {
  for (const { native, base, layers } of AS_RULES) {
    test(`${base} + ${layers.map((l) => l.id).join(" + ")} catches what ${native} catches`, async () => {
      const variant = { world: deviceSupport.id, layers };
      for (const policy of Object.keys(DEVICE_SUPPORT_POLICIES)) {
        for (const seed of [0, 1, 2]) {
          const want = await play(native, policy, seed);
          const got = await play(base, policy, seed, variant);
          assert.deepEqual(
            got,
            want,
            `${policy} seed ${seed}: the rule variant disagrees with the native family`,
          );
        }
      }
    });
  }
});
