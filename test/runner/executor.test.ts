/**
 * executePlan, the one trial pipeline: writes the experiment and its manifest through the recorder
 * before any trial runs, each record write-once after, and the experiment's status around them; the
 * schedulers decide where trials run. Also: which modules record (the port's callers) — the old
 * single-trial paths are gone.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import type { Agent, AgentAction, TrialRecord, TrialSpec } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { summarizeTrial } from "../../src/core/trial-summary.ts";
import {
  type ExperimentEntry,
  executePlan,
  MemoryRecorder,
  poolScheduler,
  StoreRecorder,
  sequentialScheduler,
  type TrialRecorder,
} from "../../src/runner/index.ts";
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

const entry = (spec: TrialSpec): ExperimentEntry => ({
  id: spec.experimentId,
  config: configOf(spec),
  createdAt: "2024-01-01T00:00:00.000Z",
});

/** Runs one planned trial through the pipeline (as `proving mcp` and the curriculum do) and returns its record. */
async function runOne(spec: TrialSpec, agent: Agent, recorder: TrialRecorder): Promise<TrialRecord> {
  let ran: TrialRecord | undefined;
  await executePlan(
    { experiment: entry(spec), manifest: [spec] },
    {
      registry: { world: () => world },
      agents: new Map([[spec.agent.id, { ref: spec.agent, forWorld: () => agent }]]),
      recorder,
      scheduler: sequentialScheduler(),
      onTrial: (r) => {
        ran = r;
      },
    },
  );
  assert.ok(ran, "the trial ran");
  return ran;
}

const ledger = (store: Store) => new StoreRecorder(store, { flushEveryMs: 0 });

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

describe("executePlan: one trial through the store recorder", () => {
  test("records the experiment, its one-trial manifest and the trial; the experiment ends completed", async () => {
    const store = await openStore(":memory:");
    try {
      const spec = trialSpec({ experimentId: "exp-one" });
      const record = await runOne(spec, goodToyAgent, ledger(store));
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
      const running = runOne(spec, waits, ledger(store));
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
        runOne(spec, goodToyAgent, ledger(failingSaves(store))),
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
      await runOne(spec, goodToyAgent, ledger(store));
      const other = trialSpec({ experimentId: "exp-taken", family: "wait-bonus" });
      await assert.rejects(
        runOne(other, goodToyAgent, ledger(store)),
        (err: unknown) => err instanceof ProvingError && err.code === "experiment_conflict",
      );
      assert.equal(await store.getTrial(other.id), undefined);
    } finally {
      await store.close();
    }
  });

  test("with the memory recorder the trial runs and its record is only returned", async () => {
    const spec = trialSpec();
    const recorder = new MemoryRecorder({ keepRecords: true });
    const record = await runOne(spec, goodToyAgent, recorder);
    assert.equal(record.outcome, "passed");
    assert.equal(record.spec, spec);
    assert.equal(recorder.end, "completed");
    assert.deepStrictEqual(await recorder.read(spec.id), record);
  });
});

describe("executePlan: the plan, write-once records, schedulers and statuses", () => {
  const plan = (id: string, n: number) => {
    const manifest = Array.from({ length: n }, (_, i) => trialSpec({ experimentId: id, seed: i }));
    return { experiment: entry(manifest[0]), manifest };
  };
  const agents = new Map([["hand-made", { ref: trialSpec().agent, forWorld: () => goodToyAgent }]]);

  test("a second run of the same plan runs nothing: every trial is recorded once, the experiment completed", async () => {
    const store = await openStore(":memory:");
    try {
      const p = plan("exp-twice", 5);
      const first = await executePlan(p, {
        registry: { world: () => world },
        agents,
        recorder: new StoreRecorder(store),
        scheduler: poolScheduler(2),
      });
      assert.equal(first.ranNow, 5);
      assert.equal(first.interrupted, false);
      let called = 0;
      const again = await executePlan(p, {
        registry: { world: () => world },
        agents,
        recorder: new StoreRecorder(store),
        scheduler: poolScheduler(2),
        onTrial: () => called++,
      });
      assert.equal(again.ranNow, 0);
      assert.equal(called, 0);
      assert.equal(again.recordedBefore.size, 5);
      assert.deepEqual(
        (await again.rows()).map((r) => r.outcome),
        ["passed", "passed", "passed", "passed", "passed"],
      );
      assert.equal((await store.getExperiment("exp-twice"))?.status, "completed");
    } finally {
      await store.close();
    }
  });

  test("an abort stops the pool: what did not run is missing and the experiment is interrupted", async () => {
    const store = await openStore(":memory:");
    try {
      const p = plan("exp-abort", 6);
      const stop = new AbortController();
      const result = await executePlan(p, {
        registry: { world: () => world },
        agents,
        recorder: new StoreRecorder(store),
        scheduler: sequentialScheduler(),
        signal: stop.signal,
        onTrial: (_r, progress) => {
          if (progress.done === 2) stop.abort();
        },
      });
      assert.equal(result.ranNow, 2);
      assert.equal(result.interrupted, true);
      assert.deepEqual(
        (await result.rows()).map((r) => r.outcome),
        ["passed", "passed", "missing", "missing", "missing", "missing"],
      );
      assert.equal((await store.getExperiment("exp-abort"))?.status, "interrupted");
    } finally {
      await store.close();
    }
  });

  test("a trial whose agent was not resolved still counts: infra_error with the reason, not a crash", async () => {
    const recorder = new MemoryRecorder({ keepRecords: true });
    const p = plan("exp-noagent", 1);
    const result = await executePlan(p, {
      registry: { world: () => world },
      agents: new Map(),
      recorder,
      scheduler: sequentialScheduler(),
    });
    const [row] = await result.rows();
    assert.equal(row.outcome, "infra_error");
    assert.match((await recorder.read(p.manifest[0].id))?.reason ?? "", /no agent "hand-made" was resolved/);
  });

  test("a scheduler that hands trials off (a queue) leaves the experiment running, not interrupted", async () => {
    const store = await openStore(":memory:");
    try {
      const p = plan("exp-handoff", 3);
      const result = await executePlan(p, {
        registry: { world: () => world },
        agents,
        recorder: new StoreRecorder(store),
        scheduler: { run: async () => "handed_off" as const },
      });
      assert.equal(result.ranNow, 0);
      assert.equal(result.interrupted, true);
      assert.equal((await store.getExperiment("exp-handoff"))?.status, "running");
      assert.equal((await store.missingTrials("exp-handoff")).length, 3);
    } finally {
      await store.close();
    }
  });

  test("a recorder that already holds a trial's record keeps the first (write-once) and says so", async () => {
    const recorder = new MemoryRecorder();
    const p = plan("exp-once", 1);
    const seen: boolean[] = [];
    const twice = {
      run: async (todo: readonly TrialSpec[], runOne: (s: TrialSpec, slot: number) => Promise<void>) => {
        await runOne(todo[0], 0);
        await runOne(todo[0], 0);
        return "done" as const;
      },
    };
    await executePlan(p, {
      registry: { world: () => world },
      agents,
      recorder,
      scheduler: twice,
      onTrial: (_r, _p, recorded) => seen.push(recorded),
    });
    assert.deepEqual(seen, [true, false]);
  });
});

describe("one pipeline: who records trials", () => {
  const src = path.join(import.meta.dirname, "../../src");
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? files(path.join(dir, e.name))
        : e.name.endsWith(".ts")
          ? [path.join(dir, e.name)]
          : [],
    );
  const using = (pattern: RegExp) =>
    files(src)
      .filter((f) => pattern.test(readFileSync(f, "utf8")))
      .map((f) => path.relative(src, f))
      .sort();

  test("the executor is the one caller of runPlannedTrial, and these run trials through the executor", () => {
    assert.deepEqual(using(/\brunPlannedTrial\(/), ["runner/executor.ts", "runner/planned-trial.ts"]);
    assert.deepEqual(using(/\bexecutePlan\(/), [
      "curriculum/run-specs.ts",
      "mcp/trial.ts",
      "queue/coordinator.ts",
      "queue/queued-trial.ts",
      "runner/executor.ts",
      "runner/run.ts",
      "train/episodes.ts",
    ]);
  });

  test("records reach the store only through the recorders (and the queue's give-up record of a poison trial)", () => {
    assert.deepEqual(
      using(/\.(saveTrials|recordTrialOnce)\(|new TrialWriter\(/).filter((f) => !f.startsWith("store/")),
      ["queue/attempt-recorder.ts", "queue/trial-worker.ts", "runner/store-recorder.ts"],
    );
  });

  test("the old single-trial paths are gone", () => {
    assert.deepEqual(using(/runAndRecordTrial|runAndRecordOnce/), []);
  });
});
