/** Variants from the rigger join the dynamic split: stored with provenance, listed, sampled by a new run. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  buildTaskSpace,
  curriculumConfig,
  MemoryHistory,
  openCurriculumStore,
  runCurriculum,
  splitWithVariants,
} from "../../src/curriculum/index.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { SPLIT } from "./fixtures/split.ts";
import { weakResolved } from "./fixtures/weak-agent.ts";

const VARIANT = {
  world: "device-support@1",
  layers: [{ id: "rule.disable-tool@1", params: { tool: "check_warranty", hide: false } }],
};

test("addVariant stores a variant with provenance; listVariants returns it; a new run samples its keys", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "cur-variants-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const gym = defaultGym();
  const store = await openCurriculumStore(join(dir, "p.db"));
  try {
    const variantId = gym.harness.variantId(VARIANT);
    const added = await store.addVariant({
      variant: VARIANT,
      variantId,
      provenance: { rigger: "test", n: 1 },
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    assert.equal(added.status, "accepted");
    await store.addVariant({
      variant: { ...VARIANT, layers: [{ id: "rule.disable-tool@1", params: { tool: "lookup_order" } }] },
      variantId: "other",
      provenance: null,
      status: "rejected",
      createdAt: "2026-01-02T00:00:00.000Z",
    });
    const all = await store.listVariants();
    assert.deepEqual(
      all.map((v) => [v.variantId, v.status]),
      [
        [variantId, "accepted"],
        ["other", "rejected"],
      ],
    );
    const accepted = await store.listVariants({ status: "accepted" });
    assert.deepEqual(
      accepted.map((v) => v.variantId),
      [variantId],
    );
    assert.deepEqual(accepted[0].provenance, { rigger: "test", n: 1 });
    assert.deepEqual(accepted[0].variant, VARIANT);
    await assert.rejects(
      store.addVariant({ variant: VARIANT, variantId, provenance: null, status: "maybe" as never }),
      /status/,
    );

    const split = splitWithVariants(SPLIT, all, gym);
    assert.equal(split.dynamic.variants?.length, 1, "the rejected variant stays out");
    assert.equal(splitWithVariants(split, all, gym).dynamic.variants?.length, 1, "not added twice");
    assert.equal(
      splitWithVariants(SPLIT, all, gym, { requireReview: true, approved: new Set() }),
      SPLIT,
      "unreviewed variants stay out when review is required",
    );
    const space = buildTaskSpace(split, gym);
    const variantKeys = space.dynamic.filter((e) => e.key.variant === variantId);
    assert.equal(variantKeys.length, buildTaskSpace(SPLIT, gym).dynamic.length);

    const config = curriculumConfig({
      id: "with-variants",
      split,
      agent: weakResolved.ref.spec,
      episodes: 30,
      strategy: "uniform",
      difficulty: false,
      evalEvery: 100,
    });
    const r = await runCurriculum(config, { gym, history: new MemoryHistory(), agent: weakResolved });
    const sampled = r.episodes.filter((e) => e.variant === variantId);
    assert.ok(sampled.length > 0, "the stored variant is sampled");
    assert.ok(sampled.length < r.episodes.length, "and so are the base world's keys");
  } finally {
    await store.close();
  }
});
