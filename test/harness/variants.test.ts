/** Declarative variants: parsing, ids, planning, and runs through the runner, broken down by variant. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import type { TrialRecord, TrialSpec } from "../../src/core/contracts.ts";
import type { JsonValue } from "../../src/core/json.ts";
import { readVariant, variantId, variantLabel } from "../../src/harness/variant.ts";
import { summarizeExperiment } from "../../src/report/summary.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { makeHarness } from "./helpers.ts";

const harness = makeHarness();
const lostRefund = {
  world: "order-ops@1",
  layers: [{ id: "rule.lose-reply-after-commit@1", params: { tool: "issue_refund" } }],
};

describe("declarative variants", () => {
  test("a variant is plain data: {world, layers: [{id, params}]} or a bare world id", () => {
    assert.deepEqual(readVariant("order-ops@1"), { world: "order-ops@1", layers: [] });
    assert.deepEqual(readVariant(lostRefund), lostRefund);
    assert.deepEqual(readVariant({ world: "w@1", layers: [{ id: "rule.x@1" }] }).layers, [
      { id: "rule.x@1", params: {} },
    ]);
    assert.throws(() => readVariant({ world: "w@1", layers: [{ id: "Bad Id" }] }), /layers\.0\.id/);
    assert.throws(
      () => readVariant({ world: "w@1", extra: 1 }),
      (e: Error & { code?: string }) => e.code === "bad_variant",
    );
    assert.throws(
      () => harness.normalize({ world: "nope@1" }),
      (e: Error & { code?: string }) => e.code === "unknown_world",
    );
    assert.throws(
      () => harness.normalize({ world: "order-ops@1", layers: [{ id: "rule.nope@1" }] }),
      (e: Error & { code?: string }) => e.code === "unknown_layer",
    );
  });

  test("normalizing fills default params; the id hashes (world, layer ids with params, in order)", () => {
    const n = harness.normalize(lostRefund);
    assert.deepEqual(n.layers[0].params, { tool: "issue_refund", times: 1, code: "timeout" });
    assert.equal(harness.variantId(lostRefund), variantId(n));
    assert.equal(
      harness.variantId({
        world: "order-ops@1",
        layers: [{ id: "rule.lose-reply-after-commit@1", params: { tool: "issue_refund", times: 1 } }],
      }),
      harness.variantId(lostRefund),
      "explicit defaults are the same variant",
    );
    assert.match(variantId(n), /^v-[0-9a-f]{16}$/);
    assert.equal(variantLabel(n), "order-ops@1 + lose-reply-after-commit");
    assert.equal(variantLabel({ ...n, name: "lost refund" }), "lost refund");
  });

  test("planVariants: one planned variant each; a duplicate is a config error", () => {
    const planned = harness.planVariants({ variants: ["order-ops@1", lostRefund as unknown as JsonValue] });
    assert.equal(planned.length, 2);
    assert.equal(planned[1].variantId, harness.variantId(lostRefund));
    assert.equal(planned[1].world, "order-ops@1");
    assert.throws(
      () =>
        harness.planVariants({
          variants: [lostRefund, { ...lostRefund, name: "again" }] as unknown as JsonValue[],
        }),
      (e: Error & { code?: string }) => e.code === "duplicate_variant",
    );
  });

  test("runExperiment across variants: every trial record carries its variant id; the summary breaks down by variant", async () => {
    const config = parseExperiment({
      id: "variants-test",
      worlds: ["order-ops@1"],
      families: ["refund"],
      difficulties: [1],
      trials: 2,
      agents: ["careful", "claims-success"],
      variants: ["order-ops@1", lostRefund],
    });
    const records: TrialRecord[] = [];
    const result = await runExperiment(config, {
      registry: harness.registry,
      environment: harness.environment,
      planVariants: harness.planVariants,
      concurrency: 2,
      onTrial: (r) => records.push(r),
    });
    assert.equal(result.manifest.length, 8);
    assert.equal(records.length, 8);
    for (const r of records) {
      assert.ok(r.spec.variantId, "every record has a variant id");
      assert.equal(r.spec.variantId, harness.variantId(r.spec.variant));
    }
    const s = summarizeExperiment(result.trials);
    const base = harness.variantId("order-ops@1");
    const lost = harness.variantId(lostRefund);
    assert.deepEqual(Object.keys(s.by_variant ?? {}).sort(), [base, lost].sort());
    assert.equal(s.by_variant?.[base].passed, 4, "both policies pass the bare refund");
    assert.equal(s.by_variant?.[lost].passed, 2, "only careful passes with the reply lost");
    assert.equal(s.by_variant?.[lost].violations.unsupported_claim, 2);
  });

  test("the environment factory refuses a record whose variant id does not match its layers", () => {
    const spec = { id: "t", variant: lostRefund, variantId: "v-0000000000000000" } as unknown as TrialSpec;
    assert.throws(
      () => harness.environment(spec, harness.registry.world("order-ops@1")),
      (e: Error & { code?: string }) => e.code === "variant_mismatch",
    );
  });

  test("examples: every variant file in examples/ plans and builds", () => {
    const dir = path.resolve(import.meta.dirname, "../../examples");
    const files = fs.readdirSync(dir).filter((f) => /variants.*\.ya?ml$/.test(f));
    assert.ok(files.length >= 1);
    return import("yaml").then(({ parse }) => {
      for (const f of files) {
        const config = parse(fs.readFileSync(path.join(dir, f), "utf8"));
        const planned = harness.planVariants(config);
        assert.ok(planned.length >= 4, `${f}: at least four variants`);
        for (const p of planned) assert.ok(harness.build(p.variant));
      }
    });
  });
});
