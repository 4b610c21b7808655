/**
 * The transfer experiment (issue 25, experiment 2), small and seeded: arm (b) trains on the variants
 * it is given, every evaluation plays the UNMODIFIED world frozen, the arms are paired by seed (both
 * start from the seed's warm policy), and the whole run is deterministic.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TrialRecord } from "../../src/core/contracts.ts";
import type { JsonValue } from "../../src/core/json.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { MemoryRecorder } from "../../src/runner/memory-recorder.ts";
import {
  runTransfer,
  type TransferOptions,
  trainSplit,
  type VariantSource,
  variantSchedule,
} from "../../src/train/index.ts";

const gym = defaultGym();
const world = gym.world("device-support@1");
const VARIANT: JsonValue = {
  world: "device-support@1",
  layers: [{ id: "rule.lose-reply-after-commit@1", params: { tool: "create_replacement", times: 1 } }],
};
const split = trainSplit(world, { difficulties: [1], seeds: [9001] });
const options: TransferOptions = {
  id: "tt",
  world,
  learner: "q",
  episodes: 40,
  warmup: 10,
  seeds: [1, 2],
  split,
};

async function run(variants: VariantSource, extra: Partial<TransferOptions> = {}, only?: number) {
  const records: TrialRecord[] = [];
  const warmHashes: string[] = [];
  const result = await runTransfer(
    { ...options, ...extra },
    {
      parts: { registry: gym.registry, environment: gym.harness.environment },
      variants: async (seed, warm, policy) => {
        assert.equal(warm.frozen, true, "the rigger sees a frozen copy of the warm learner");
        warmHashes.push(policy.hash);
        return only === undefined || only === seed ? variants : { source: "none", variants: [] };
      },
      recorder: () => {
        const recorder = new MemoryRecorder();
        const record = recorder.record.bind(recorder);
        recorder.record = async (r: TrialRecord) => {
          records.push(r);
          return record(r);
        };
        return recorder;
      },
    },
  );
  return { result, records, warmHashes };
}

test("train transfer: arm (b) trains on the variants, every evaluation plays the unmodified world frozen", async () => {
  const given: VariantSource = {
    source: "given",
    variants: [{ variant: VARIANT, variantId: gym.harness.variantId(VARIANT) }],
  };
  const { result, records, warmHashes } = await run(given);
  assert.equal(result.schemaVersion, 1);
  assert.deepEqual(
    result.perSeed.map((s) => s.seed),
    [1, 2],
  );
  for (const s of result.perSeed) {
    const [a, b] = s.arms;
    assert.deepEqual(a.episodes, { base: 30, variant: 0 });
    assert.deepEqual(b.episodes, { base: 15, variant: 15 });
    // paired by seed: both arms were evaluated on the same tasks and started from the seed's warm policy
    assert.equal(a.evaluation.regression.trials, b.evaluation.regression.trials);
    assert.equal(s.warm.policyHash, warmHashes[result.perSeed.indexOf(s)]);
  }
  // 2 seeds x (warm, a, b) evaluations x (regression + held-out tasks), none on a variant
  assert.equal(records.length, 2 * 3 * (split.regression.length + split.heldout.length));
  for (const r of records) {
    assert.equal(r.spec.variant, undefined);
    assert.equal(r.spec.variantId, undefined);
    assert.equal(r.spec.world, "device-support@1");
    assert.ok(r.spec.split === "regression" || r.spec.split === "heldout");
  }
  assert.ok(records.some((r) => r.spec.split === "heldout"));
  // deterministic given the seeds
  const again = await run(given);
  assert.deepEqual(again.result, result);
});

test("train transfer: without variants arm (b) is arm (a), and the paired difference is exactly 0", async () => {
  const { result } = await run({ source: "none", variants: [] });
  for (const s of result.perSeed)
    assert.equal(s.arms[0].evaluation.policyHash, s.arms[1].evaluation.policyHash);
  assert.deepEqual(result.difference.regression, { estimate: 0, lo: 0, hi: 0 });
  assert.equal(result.seedsWithVariants, 0);
});

test("train transfer --pool-variants: a seed whose rigger accepted nothing trains on the other seeds' variants", async () => {
  const given: VariantSource = {
    source: "given",
    variants: [{ variant: VARIANT, variantId: gym.harness.variantId(VARIANT) }],
  };
  const own = await run(given, {}, 1);
  assert.deepEqual(
    own.result.perSeed.map((s) => s.arms[1].episodes.variant),
    [15, 0],
  );
  assert.equal(own.result.seedsWithVariants, 1);
  const pooled = await run(given, { poolVariants: true }, 1);
  assert.deepEqual(
    pooled.result.perSeed.map((s) => s.arms[1].episodes.variant),
    [15, 15],
  );
  assert.equal(pooled.result.seedsWithVariants, 2);
  assert.equal(pooled.result.distinctVariants, 1);
});

test("variantSchedule: every other episode on a variant, round-robin, the tasks unchanged", () => {
  const tasks = Array.from({ length: 6 }, (_, i) => ({ family: "f", difficulty: 1, seed: i }));
  const vs = [
    { variant: "x" as JsonValue, variantId: "v1" },
    { variant: "y" as JsonValue, variantId: "v2" },
  ];
  const s = variantSchedule(tasks, vs, 0.5);
  assert.deepEqual(
    s.map((t) => t.variantId ?? "-"),
    ["-", "v1", "-", "v2", "-", "v1"],
  );
  assert.deepEqual(
    s.map((t) => t.seed),
    [0, 1, 2, 3, 4, 5],
  );
  assert.deepEqual(variantSchedule(tasks, [], 0.5), tasks);
});
