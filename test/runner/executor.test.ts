/**
 * runAndRecordTrial: the runner's single-trial entry (what `proving mcp` runs its trial through)
 * writes the experiment and its one-trial manifest before the trial runs, the record through the
 * normal writer path after, and the experiment's status around them.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Agent, AgentAction, TrialSpec } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { summarizeTrial } from "../../src/core/trial-summary.ts";
import { runAndRecordTrial } from "../../src/runner/index.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Store } from "../../src/store/store.ts";
import { goodToyAgent, toyWorld } from "../support/toy-world.ts";
import { trialSpec } from "../support/trial-spec.ts";

const world = toyWorld();

function configOf(spec: TrialSpec): JsonObject {
  return {
    id: spec.experimentId,
    description: "one trial",
    worlds: [spec.world],
    families: [spec.family],
    difficulties: [spec.difficulty],
    agents: [spec.agent.spec],
    seed: spec.seed,
    trials: 1,
  };
}

const ledger = (store: Store, spec: TrialSpec) => ({
  store,
  config: configOf(spec),
  createdAt: "2024-01-01T00:00:00.000Z",
});

/** A store whose trial saves fail (the rest works). */
function failingSaves(store: Store): Store {
  return new Proxy(store, {
    get(target, key) {
      if (key === "saveTrials")
        return async () => Promise.reject(new ProvingError("store_failed", "disk full"));
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("runAndRecordTrial", () => {
  test("records the experiment, its one-trial manifest and the trial; the experiment ends completed", async () => {
    const store = await openStore(":memory:");
    try {
      const spec = trialSpec({ experimentId: "exp-one" });
      const record = await runAndRecordTrial(spec, { world, agent: goodToyAgent }, ledger(store, spec));
      assert.equal(record.outcome, "passed", record.reason);
      const experiment = await store.getExperiment("exp-one");
      assert.equal(experiment?.status, "completed");
      assert.deepEqual(experiment?.config, configOf(spec));
      assert.deepEqual(await store.getManifest("exp-one"), [spec]);
      assert.deepStrictEqual(await store.getTrial(spec.id), record);
      // the store's summary row and the record's agree
      assert.deepStrictEqual(await store.listTrials("exp-one"), [summarizeTrial(record)]);
    } finally {
      await store.close();
    }
  });

  test("the manifest is written before the trial runs: mid-trial, the experiment is running and the trial missing", async () => {
    const store = await openStore(":memory:");
    try {
      const spec = trialSpec({ experimentId: "exp-mid" });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let reached!: () => void;
      const midTrial = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const waits: Agent = {
        id: "waits",
        start(episode) {
          const inner = goodToyAgent.start(episode) as { act(o: unknown): Promise<AgentAction> };
          return {
            async act(observation) {
              reached();
              await gate;
              return inner.act(observation);
            },
          };
        },
      };
      const running = runAndRecordTrial(spec, { world, agent: waits }, ledger(store, spec));
      await midTrial;
      assert.equal((await store.getExperiment("exp-mid"))?.status, "running");
      assert.deepEqual(
        (await store.missingTrials("exp-mid")).map((s) => s.id),
        [spec.id],
      );
      release();
      const record = await running;
      assert.equal(record.outcome, "passed");
      assert.deepEqual(await store.missingTrials("exp-mid"), []);
    } finally {
      await store.close();
    }
  });

  test("a store that fails to save the record: the error is raised and the experiment is left interrupted", async () => {
    const store = await openStore(":memory:");
    try {
      const spec = trialSpec({ experimentId: "exp-fails" });
      await assert.rejects(
        runAndRecordTrial(spec, { world, agent: goodToyAgent }, ledger(failingSaves(store), spec)),
        (err: unknown) => err instanceof ProvingError && err.code === "store_failed",
      );
      assert.equal((await store.getExperiment("exp-fails"))?.status, "interrupted");
      assert.equal(await store.getTrial(spec.id), undefined);
    } finally {
      await store.close();
    }
  });

  test("an experiment stored with another plan is refused (experiment_conflict), as runExperiment refuses it", async () => {
    const store = await openStore(":memory:");
    try {
      const spec = trialSpec({ experimentId: "exp-taken" });
      await runAndRecordTrial(spec, { world, agent: goodToyAgent }, ledger(store, spec));
      const other = trialSpec({ experimentId: "exp-taken", family: "wait-bonus" });
      await assert.rejects(
        runAndRecordTrial(other, { world, agent: goodToyAgent }, ledger(store, other)),
        (err: unknown) => err instanceof ProvingError && err.code === "experiment_conflict",
      );
      assert.equal(await store.getTrial(other.id), undefined);
    } finally {
      await store.close();
    }
  });

  test("without a ledger the trial runs and its record is only returned", async () => {
    const spec = trialSpec();
    const record = await runAndRecordTrial(spec, { world, agent: goodToyAgent });
    assert.equal(record.outcome, "passed");
    assert.equal(record.spec, spec);
  });
});
