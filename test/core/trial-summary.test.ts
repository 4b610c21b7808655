/**
 * Trial summaries: a record's row, a missing trial's row, and the join of a manifest with the rows
 * recorded for it (every planned trial exactly once, in manifest order; a planned trial without a
 * record counts as `missing`).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { TrialSpec } from "../../src/core/contracts.ts";
import {
  manifestRows,
  missingSummary,
  summarizeTrial,
  type TrialSummary,
} from "../../src/core/trial-summary.ts";
import { runTrial } from "../../src/runner/trial.ts";
import { goodToyAgent, overshooter, toyWorld } from "../support/toy-world.ts";
import { trialSpec } from "../support/trial-spec.ts";

const world = toyWorld();
const specs: TrialSpec[] = [0, 1, 2, 3].map((i) =>
  trialSpec({ experimentId: "exp-rows", index: i, seed: i, ...(i === 3 ? { variantId: "v-1" } : {}) }),
);

describe("trial summaries", () => {
  test("a record's row carries its spec's coordinates, outcome, verdict and stats", async () => {
    const record = await runTrial(specs[0], { world, agent: overshooter });
    const row = summarizeTrial(record);
    assert.equal(row.trialId, specs[0].id);
    assert.equal(row.agent, specs[0].agent.id);
    assert.equal(row.outcome, "violated");
    assert.equal(row.passed, false);
    assert.deepEqual(row.violations, ["overshoot"]);
    assert.equal(row.steps, record.stats.steps);
    assert.equal(row.trajectoryHash, record.trajectoryHash);
    assert.equal("variantId" in row, false);
  });

  test("a missing trial's row: outcome missing, no verdict, nothing run", () => {
    const row = missingSummary(specs[3]);
    assert.equal(row.outcome, "missing");
    assert.equal(row.passed, null);
    assert.equal(row.score, null);
    assert.equal(row.steps, 0);
    assert.equal(row.variantId, "v-1");
    assert.equal(row.index, 3);
  });

  test("manifestRows: one row per planned trial, in manifest order, recorded or missing; unplanned rows apart", async () => {
    const recorded: TrialSummary[] = [];
    for (const spec of [specs[2], specs[0]])
      recorded.push(summarizeTrial(await runTrial(spec, { world, agent: goodToyAgent })));
    const stray = { ...recorded[0], trialId: "t-not-planned" };
    const { rows, unplanned } = manifestRows(specs, [...recorded, stray]);
    assert.deepEqual(
      rows.map((r) => r.trialId),
      specs.map((s) => s.id),
    );
    assert.deepEqual(
      rows.map((r) => r.outcome),
      ["passed", "missing", "passed", "missing"],
    );
    assert.equal(rows[0], recorded[1], "a recorded row is used as it is");
    assert.deepEqual(rows[1], missingSummary(specs[1]));
    assert.deepEqual(unplanned, [stray]);
  });

  test("manifestRows of nothing recorded: every planned trial missing", () => {
    const { rows, unplanned } = manifestRows(specs, []);
    assert.deepEqual(
      rows.map((r) => r.outcome),
      ["missing", "missing", "missing", "missing"],
    );
    assert.deepEqual(unplanned, []);
  });
});
