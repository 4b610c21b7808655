/**
 * `proving replay <trial-id>`: the recorded actions, re-run against a fresh world built from the
 * record, reproduce every observation and the verdict; a record that was tampered with, or a task that
 * is no longer generated the same way, is reported at the first step that differs.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { replayTrial } from "../../src/runner/replay.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Store } from "../../src/store/store.ts";
import { runCliToEnd } from "./support/child.ts";

const registry = defaultGym().registry;
const world = registry.world("device-support@1");
let dir: string;
let file: string;
let store: Store;
const records = new Map<string, TrialRecord>();

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-replay-"));
  file = path.join(dir, "replay.db");
  store = await openStore(file);
  const config = parseExperiment({
    id: "replayed",
    difficulties: [1, 3],
    trials: 1,
    agents: Object.keys(world.policies),
  });
  await runExperiment(config, { registry, store, concurrency: 8, onTrial: (r) => records.set(r.spec.id, r) });
});
after(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const copy = (r: TrialRecord): TrialRecord => JSON.parse(JSON.stringify(r));
/** A recorded trial with at least `n` steps whose id is not `except`. */
function withSteps(n: number, except = ""): TrialRecord {
  const found = [...records.values()].find((r) => r.steps.length >= n && r.spec.id !== except);
  assert.ok(found, `no trial with ${n} steps`);
  return found;
}

describe("replay", () => {
  test("every recorded trial (80: all policies × families × 2 difficulties) reproduces exactly", async () => {
    assert.equal(records.size, 80);
    for (const id of records.keys()) {
      const stored = await store.getTrial(id);
      assert.ok(stored);
      const r = await replayTrial(stored, { registry });
      assert.deepEqual(r, { trialId: id, reproduced: true, steps: stored.steps.length }, id);
    }
  });

  test("a tampered observation is reported at its step, with what was recorded and what the world says", async () => {
    const original = withSteps(4);
    const tampered = copy(original);
    const obs = tampered.steps[2].observation;
    assert.equal(obs.kind, "tool_result");
    if (obs.kind === "tool_result") obs.now += 7;
    const r = await replayTrial(tampered, { registry });
    assert.equal(r.reproduced, false);
    assert.equal(r.steps, 3);
    assert.deepEqual(r.divergence, {
      step: 2,
      what: "observation",
      expected: JSON.parse(JSON.stringify(tampered.steps[2].observation)),
      actual: JSON.parse(JSON.stringify(original.steps[2].observation)),
    });
  });

  test("a changed action makes the world answer differently at that step", async () => {
    const tampered = copy(withSteps(3));
    tampered.steps[1].action = { ...tampered.steps[1].action, args: { case_id: "C-404" } };
    const r = await replayTrial(tampered, { registry });
    assert.equal(r.reproduced, false);
    assert.equal(r.divergence?.step, 1);
    assert.equal(r.divergence?.what, "observation");
  });

  test("a task that no longer generates the same content is reported before the first step", async () => {
    const tampered = copy(withSteps(1));
    tampered.task.generator.contentHash = "0".repeat(16);
    const r = await replayTrial(tampered, { registry });
    assert.equal(r.divergence?.step, -1);
    assert.equal(r.divergence?.what, "task");
    assert.equal(r.steps, 0);
  });

  test("a verdict that does not follow from the trajectory is reported", async () => {
    const tampered = copy(withSteps(2));
    assert.ok(tampered.verdict);
    tampered.verdict.passed = !tampered.verdict.passed;
    const r = await replayTrial(tampered, { registry });
    assert.equal(r.divergence?.what, "verdict");
    assert.equal(r.divergence?.step, tampered.steps.length - 1);
  });

  test("a trial that never reached its world has nothing to replay", async () => {
    const never = copy(withSteps(1));
    delete never.initial;
    never.steps = [];
    await assert.rejects(
      replayTrial(never, { registry }),
      (err: unknown) => err instanceof ProvingError && err.code === "nothing_to_replay",
    );
  });

  test("the CLI: `proving replay ID --json` for a clean and a tampered record", async () => {
    const clean = withSteps(3);
    const tampered = copy(withSteps(3, clean.spec.id));
    const obs = tampered.steps[0].observation;
    if (obs.kind === "tool_result") obs.callId = "forged";
    await store.saveTrials([tampered]);
    const ok = await runCliToEnd(["replay", clean.spec.id, "--store", file, "--json"]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(JSON.parse(ok.stdout), {
      trialId: clean.spec.id,
      reproduced: true,
      steps: clean.steps.length,
    });
    const bad = await runCliToEnd(["replay", tampered.spec.id, "--store", file, "--json", "--exit-code"]);
    assert.equal(bad.code, 1);
    const out = JSON.parse(bad.stdout);
    assert.deepEqual(Object.keys(out).sort(), ["divergence", "reproduced", "steps", "trialId"]);
    assert.equal(out.reproduced, false);
    assert.equal(out.divergence.step, 0);
    assert.equal(out.divergence.expected.callId, "forged");
    assert.equal(out.divergence.actual.callId, "call-0");
    const text = await runCliToEnd(["replay", tampered.spec.id, "--store", file]);
    assert.match(text.stdout, /diverges at step 0 \(observation\)/);
    const missing = await runCliToEnd(["replay", "t-0000000000000000", "--store", file]);
    assert.equal(missing.code, 2);
    await store.saveTrials([records.get(tampered.spec.id)!]);
  });
});
