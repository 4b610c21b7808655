/**
 * runExperiment: the manifest is worlds × families × difficulties × trials × agents × repeats, every
 * planned trial appears exactly once in the result (`missing` when it never ran), and with a store the
 * records round-trip and a re-run resumes instead of running twice.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { expandManifest } from "../../src/runner/manifest.ts";
import { type ExperimentResult, runExperiment } from "../../src/runner/run.ts";
import { openStore } from "../../src/store/open-store.ts";
import { goodToyAgent, toyRegistry, toyWorld } from "../support/toy-world.ts";

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-runner-"));
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** toy@1 plus a second world, toy-b@1, so experiments can span worlds. */
function registry() {
  const r = toyRegistry();
  r.registerWorld(toyWorld({}, "toy-b@1"));
  return r;
}

const CONFIG = {
  worlds: ["toy@1", "toy-b@1"],
  families: ["reach", "wait-bonus"],
  difficulties: [1, 3],
  trials: 3,
  repeats: 2,
  agents: ["good", "quitter"],
};
const PLANNED = 2 * 2 * 2 * 3 * 2 * 2;

/** Every manifest entry appears exactly once in `trials`, in manifest order. */
function checkAccounting(result: ExperimentResult): void {
  const ids = result.manifest.map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length, "trial ids are unique");
  assert.deepEqual(
    result.trials.map((t) => t.trialId),
    ids,
  );
  assert.deepEqual(
    result.manifest.map((s) => s.index),
    ids.map((_, i) => i),
  );
}

describe("runExperiment", () => {
  test("manifest size = worlds × families × difficulties × trials × agents × repeats; every cell once", async () => {
    const config = parseExperiment({ id: "exp-size", ...CONFIG });
    const result = await runExperiment(config, { registry: registry(), concurrency: 4 });
    assert.equal(result.manifest.length, PLANNED);
    assert.equal(result.trials.length, PLANNED);
    assert.equal(result.ranNow, PLANNED);
    assert.equal(result.interrupted, false);
    checkAccounting(result);
    const cells = new Set(
      result.manifest.map(
        (s) => `${s.world}|${s.family}|${s.difficulty}|${s.seed}|${s.agent.id}|${s.repeat}`,
      ),
    );
    assert.equal(cells.size, PLANNED, "no two planned trials share a cell");
    assert.deepEqual([...new Set(result.manifest.map((s) => s.seed))].sort(), [0, 1, 2]);
    for (const t of result.trials) {
      assert.equal(t.outcome, t.agent === "good" ? "passed" : "failed", `${t.trialId}: ${t.reason}`);
    }
  });

  test("no families listed → every family of the world; the base seed offsets the seeds", async () => {
    const config = parseExperiment({
      worlds: ["toy@1"],
      difficulties: [2],
      trials: 2,
      seed: 40,
      agents: ["good"],
    });
    const result = await runExperiment(config, { registry: registry() });
    assert.deepEqual(
      result.manifest.map((s) => `${s.family}/${s.seed}`),
      ["reach/40", "reach/41", "wait-bonus/40", "wait-bonus/41"],
    );
  });

  test("unknown families and difficulties are config errors before anything runs", () => {
    const r = registry();
    const refs = [{ id: "good", kind: "scripted", spec: "good" }];
    const bad = (input: object, code: string) =>
      assert.throws(
        () =>
          expandManifest("e", parseExperiment({ worlds: ["toy@1"], agents: ["good"], ...input }), refs, r),
        (err: unknown) => err instanceof ProvingError && err.code === code && err.fault === "config",
      );
    bad({ families: ["nope"] }, "unknown_family");
    bad({ difficulties: [9] }, "bad_difficulty");
    assert.throws(
      () => expandManifest("e", parseExperiment({ worlds: ["nope@1"], agents: ["good"] }), refs, r),
      /unknown world/,
    );
  });

  test("serial and concurrent runs give the same outcomes and trajectories", async () => {
    const config = parseExperiment({ id: "exp-conc", ...CONFIG, trials: 2 });
    const serial = await runExperiment(config, { registry: registry(), concurrency: 1 });
    const parallel = await runExperiment(config, { registry: registry(), concurrency: 16 });
    assert.deepEqual(
      parallel.trials.map((t) => [t.trialId, t.outcome, t.trajectoryHash]),
      serial.trials.map((t) => [t.trialId, t.outcome, t.trajectoryHash]),
    );
  });

  test("an aborted run still accounts for every planned trial (the rest are missing)", async () => {
    const config = parseExperiment({ id: "exp-abort", ...CONFIG });
    const controller = new AbortController();
    let seen = 0;
    const result = await runExperiment(config, {
      registry: registry(),
      concurrency: 1,
      signal: controller.signal,
      onTrial: () => {
        if (++seen === 5) controller.abort();
      },
    });
    assert.equal(result.interrupted, true);
    assert.equal(result.ranNow, 5);
    checkAccounting(result);
    const missing = result.trials.filter((t) => t.outcome === "missing");
    assert.equal(missing.length, PLANNED - 5);
    for (const m of missing) assert.equal(m.passed, null);
  });

  test("with a store: records round-trip, the manifest is stored, a re-run resumes", async () => {
    const file = path.join(dir, "roundtrip", "proving.db");
    const config = parseExperiment({ id: "exp-store", ...CONFIG, trials: 2 });
    const planned = (PLANNED / 3) * 2;
    const records = new Map<string, TrialRecord>();
    let store = await openStore(file);
    let first: ExperimentResult;
    try {
      first = await runExperiment(config, {
        registry: registry(),
        store,
        concurrency: 4,
        onTrial: (r) => records.set(r.spec.id, r),
      });
      assert.equal(first.trials.length, planned);
      checkAccounting(first);
      assert.equal(records.size, planned);
      assert.deepStrictEqual(await store.getManifest("exp-store"), first.manifest);
      for (const [id, record] of records) {
        assert.deepStrictEqual(await store.getTrial(id), record, `${id} does not round-trip`);
      }
      const exp = await store.getExperiment("exp-store");
      assert.equal(exp?.status, "completed");
      assert.equal((await store.missingTrials("exp-store")).length, 0);
    } finally {
      await store.close();
    }
    store = await openStore(file);
    try {
      let ranAgain = 0;
      const again = await runExperiment(config, {
        registry: registry(),
        store,
        onTrial: () => ranAgain++,
      });
      assert.equal(again.ranNow, 0);
      assert.equal(ranAgain, 0);
      assert.deepEqual(
        again.trials.map((t) => [t.trialId, t.outcome, t.trajectoryHash]),
        first.trials.map((t) => [t.trialId, t.outcome, t.trajectoryHash]),
      );
    } finally {
      await store.close();
    }
  });

  test("with a store: an interrupted run resumes only what is missing", async () => {
    const file = path.join(dir, "resume", "proving.db");
    const config = parseExperiment({ id: "exp-resume", ...CONFIG, worlds: ["toy@1"] });
    const planned = PLANNED / 2;
    const controller = new AbortController();
    let store = await openStore(file);
    let ranFirst = 0;
    try {
      const first = await runExperiment(config, {
        registry: registry(),
        store,
        concurrency: 1,
        signal: controller.signal,
        onTrial: () => {
          if (++ranFirst === 10) controller.abort();
        },
      });
      assert.equal(first.interrupted, true);
      assert.equal((await store.getExperiment("exp-resume"))?.status, "interrupted");
      assert.equal((await store.missingTrials("exp-resume")).length, planned - 10);
      checkAccounting(first);
    } finally {
      await store.close();
    }
    store = await openStore(file);
    try {
      const ranNow: string[] = [];
      const second = await runExperiment(config, {
        registry: registry(),
        store,
        onTrial: (r) => ranNow.push(r.spec.id),
      });
      assert.equal(second.ranNow, planned - 10);
      assert.equal(new Set(ranNow).size, planned - 10);
      checkAccounting(second);
      assert.equal(second.trials.filter((t) => t.outcome === "missing").length, 0);
      assert.equal((await store.listTrials("exp-resume")).length, planned);
    } finally {
      await store.close();
    }
  });
});

describe("runExperiment that fails", () => {
  test("every agent is still told the run ended (finish), even when another's finish throws", async () => {
    const config = parseExperiment({
      id: "exp-fails",
      worlds: ["toy@1"],
      families: ["reach"],
      trials: 2,
      agents: ["good"],
    });
    const finished: string[] = [];
    const agent = (id: string, throwsOnFinish: boolean) => ({
      ref: { id, kind: "test", spec: id },
      forWorld: () => goodToyAgent,
      async finish() {
        finished.push(id);
        if (throwsOnFinish) throw new Error("finish failed too");
        return undefined;
      },
    });
    await assert.rejects(
      runExperiment(config, {
        registry: registry(),
        agents: [agent("first", true), agent("second", false)],
        concurrency: 1,
        onTrial: () => {
          throw new Error("disk full");
        },
      }),
      /disk full/,
    );
    assert.deepEqual(finished, ["first", "second"]);
  });
});
