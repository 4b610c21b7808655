/** Quality gates for generated tasks: dedupe by content hash, solvable by the known-good policy, not by a null agent. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { WorldDefinition } from "../../src/core/registry.ts";
import { gateTask } from "../../src/curriculum/index.ts";
import { deviceSupport } from "../../src/worlds/device-support/index.ts";

const key = { world: "device-support@1", family: "needs-approval", difficulty: 2 };

test("a new task is accepted with the known-good trajectory; the same content again is a duplicate", async () => {
  const seen = new Set<string>();
  const first = await gateTask(deviceSupport, { key, seed: 5 }, seen);
  assert.equal(first.status, "accepted");
  assert.ok(first.status === "accepted" && first.knownGood.actions.includes("request_approval"));
  const again = await gateTask(deviceSupport, { key, seed: 5 }, seen);
  assert.deepEqual(again.status === "rejected" && again.reason, "duplicate");
});

test("an unsolvable task, a trivial one and a failing generator are kept out, never fatal", async () => {
  const unsolvable: WorldDefinition = { ...deviceSupport, knownGood: "claims-success" };
  const r = await gateTask(unsolvable, { key: { ...key, family: "lost-reply" }, seed: 1 }, new Set());
  assert.deepEqual(r.status === "rejected" && r.reason, "unsolvable");
  const broken: WorldDefinition = {
    ...deviceSupport,
    generateTask: () => {
      throw new Error("template bug");
    },
  };
  const f = await gateTask(broken, { key, seed: 1 }, new Set());
  assert.equal(f.status, "failed");
  assert.match(f.status === "failed" ? f.reason : "", /template bug/);
});
