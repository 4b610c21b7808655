/**
 * `startServer({record})`, in process: the step cap's cut, an episode created over MCP, a served
 * variant (replayed through the harness), a store that fails (reported, serving goes on, the run ends
 * `interrupted`), and a server without `record` (nothing recorded).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { ProvingError } from "../../src/core/errors.ts";
import type { Action, Environment, JsonValue, TrialRecord, TrialSpec } from "../../src/core/index.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { MemoryRecorder, replayTrial, runTrial } from "../../src/runner/index.ts";
import {
  ServeClient,
  type ServeRecordOptions,
  type ServeTarget,
  startServer,
  worldTarget,
} from "../../src/serve/index.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Store } from "../../src/store/store.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { playPolicy, replaying } from "./play.ts";

/** The cautious policy's actions on a task, as the runner plays them (a known-good action list). */
async function knownGood(family: string, seed: number): Promise<Action[]> {
  const r = await runTrial(
    {
      schemaVersion: 1,
      id: "t-known-good",
      experimentId: "known-good",
      index: 0,
      world: deviceSupport.id,
      family,
      difficulty: 1,
      seed,
      repeat: 0,
      agent: { id: "cautious", kind: "scripted", spec: "cautious" },
      budget: { maxSteps: 50 },
    },
    { world: deviceSupport, agent: deviceSupport.policies.cautious! },
  );
  assert.equal(r.outcome, "passed");
  return r.steps.map((s) => s.action);
}

/** The record's actions played again by the runner give the same trajectory hash. */
async function assertRunnerHash(record: TrialRecord): Promise<void> {
  const again = await runTrial(record.spec, {
    world: deviceSupport,
    agent: replaying(record.steps.map((s) => s.action)),
  });
  assert.equal(again.outcome, record.outcome);
  assert.equal(again.trajectoryHash, record.trajectoryHash);
}

/** The store with some of its methods replaced (a store that fails). */
function storeWith(store: Store, overrides: Partial<Store>): Store {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key in overrides) return overrides[key as keyof Store];
      const v = Reflect.get(target, key, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/** A server of device-support@1 that records as told. */
function recordingServer(record: ServeRecordOptions, extra: { maxSteps?: number } = {}) {
  return startServer({ target: worldTarget(deviceSupport), port: 0, heartbeatMs: 0, record, ...extra });
}

/** Plays the cautious policy on a `denied` task of the server to the episode's end. */
async function playDenied(client: ServeClient, seed: number) {
  const first = await client.reset({ family: "denied", difficulty: 1, seed });
  const id = String(first.metadata.episode_id);
  return playPolicy("cautious", first, (a) => client.step(id, a));
}

describe("startServer({record})", () => {
  let dir: string;
  let store: Store;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-record-lib-"));
    store = await openStore(path.join(dir, "proving.db"));
  });
  after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("the step cap cuts an episode: budget_exhausted, as the runner ends one with that budget", async () => {
    const server = await recordingServer({ store, experimentId: "serve-cap" }, { maxSteps: 2 });
    const { last } = await playDenied(new ServeClient(server.url), 3);
    assert.equal(last.metadata.truncated_by, "max_steps");
    await server.close();
    const [spec] = await store.getManifest("serve-cap");
    const record = (await store.getTrial(spec!.id))!;
    assert.equal(record.outcome, "budget_exhausted");
    assert.equal(record.reason, "step budget of 2 exhausted");
    assert.deepEqual(record.spec.budget, { maxSteps: 2 });
    assert.ok(record.verdict);
    await assertRunnerHash(record);
    assert.equal((await store.getExperiment("serve-cap"))?.status, "completed");
  });

  test("an episode created over MCP (openenv/session/create) is a serve:mcp trial", async () => {
    const server = await recordingServer({ store, experimentId: "serve-mcp" });
    const rpc = async (method: string, params: Record<string, unknown>) => {
      const res = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      return ((await res.json()) as { result: Record<string, unknown> }).result;
    };
    const created = await rpc("openenv/session/create", { family: "denied", difficulty: 1, seed: 7 });
    const sid = String(created.session_id);
    for (const a of await knownGood("denied", 7)) {
      await rpc("tools/call", { session_id: sid, name: a.tool, arguments: a.args });
    }
    await server.close();
    const [spec] = await store.getManifest("serve-mcp");
    assert.equal(spec!.agent.spec, "serve:mcp");
    const record = (await store.getTrial(spec!.id))!;
    assert.equal(record.outcome, "passed");
    await assertRunnerHash(record);
  });

  test("a served variant is recorded with its layers and replays through the harness", async () => {
    const gym = defaultGym();
    const variant: JsonValue = {
      world: "device-support@1",
      layers: [{ id: "rule.lose-reply-after-commit@1", params: { tool: "create_replacement" } }],
    };
    const target = gym.target(undefined, variant);
    const server = await startServer({ target, port: 0, heartbeatMs: 0, record: { store } });
    const experimentId = server.experimentId!;
    assert.match(experimentId, /^serve-\d{8}-\d{6}-[a-z0-9]+$/);
    const client = new ServeClient(server.url);
    const first = await client.reset({ family: "needs-approval", difficulty: 1, seed: 2 });
    const id = String(first.metadata.episode_id);
    await playPolicy("cautious", first, (a) => client.step(id, a));
    await server.close();
    const experiment = await store.getExperiment(experimentId);
    assert.equal(experiment?.config.variantId, target.id);
    const [spec] = await store.getManifest(experimentId);
    assert.equal(spec!.variantId, target.id);
    const record = (await store.getTrial(spec!.id))!;
    assert.ok(
      record.steps.some((s) => s.layers?.includes("rule.lose-reply-after-commit@1")),
      "the step whose reply was lost names the layer",
    );
    const replay = await replayTrial(record, {
      registry: gym.registry,
      environment: gym.harness.environment,
    });
    assert.equal(replay.reproduced, true, JSON.stringify(replay.divergence));
  });

  test("a failing store is reported with a code; the server goes on serving; the run ends interrupted", async () => {
    const failing = storeWith(store, { saveTrials: async () => Promise.reject(new Error("disk full")) });
    const errors: ProvingError[] = [];
    const server = await recordingServer({
      store: failing,
      experimentId: "serve-failing",
      onError: (e) => errors.push(e),
    });
    const client = new ServeClient(server.url);
    assert.equal((await playDenied(client, 7)).last.done, true, "the episode is served to its end");
    const deadline = Date.now() + 5000;
    while (errors.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(errors.length > 0, "the failure is reported");
    assert.equal(errors[0]!.code, "store_failed");
    assert.match(errors[0]!.message, /disk full/);
    assert.equal((await playDenied(client, 8)).last.done, true, "and the next one");
    await server.close();
    assert.equal((await store.getExperiment("serve-failing"))?.status, "interrupted");
    const manifest = await store.getManifest("serve-failing");
    assert.equal(manifest.length, 2, "both episodes were planned");
    for (const spec of manifest)
      assert.equal(await store.getTrial(spec.id), undefined, "missing, not made up");
  });

  test("resets that arrive together are planned together: every one in the manifest, each its own index", async () => {
    const server = await recordingServer({ store, experimentId: "serve-burst" });
    const client = new ServeClient(server.url);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => client.reset({ family: "denied", difficulty: 1, seed: i % 3 })),
    );
    await server.close();
    const manifest = await store.getManifest("serve-burst");
    assert.deepEqual(
      manifest.map((s) => s.index),
      Array.from({ length: 12 }, (_, i) => i),
    );
    assert.equal(new Set(manifest.map((s) => s.id)).size, 12);
    assert.deepEqual(
      manifest.filter((s) => s.seed === 0).map((s) => s.repeat),
      [0, 1, 2, 3],
    );
    assert.equal((await store.getExperiment("serve-burst"))?.status, "interrupted", "none of them ended");
  });

  test("a plan that cannot be written is reported; the episode is served, unrecorded", async () => {
    // the run opens (its empty manifest is written); the plans of its episodes are not
    const failing = storeWith(store, {
      writeManifest: async (id: string, specs: readonly TrialSpec[]) =>
        specs.length ? Promise.reject(new Error("read-only")) : store.writeManifest(id, specs),
    });
    const errors: ProvingError[] = [];
    const server = await recordingServer({
      store: failing,
      experimentId: "serve-no-plan",
      onError: (e) => errors.push(e),
    });
    const client = new ServeClient(server.url);
    assert.equal((await playDenied(client, 7)).last.done, true);
    await server.close();
    assert.deepEqual(
      errors.map((e) => e.code),
      ["store_failed"],
    );
    assert.deepEqual(server.recordCounts(), { planned: 0, recorded: 0 });
    assert.equal((await store.getExperiment("serve-no-plan"))?.status, "completed", "0 of 0 planned");
  });

  test("a step that passes its timeout or throws ends the episode as the runner ends such a trial", async () => {
    let mode: "hang" | "throw" = "hang";
    const target: ServeTarget = {
      ...worldTarget(deviceSupport),
      create(): Environment {
        const env = deviceSupport.create();
        env.step =
          mode === "hang" ? () => new Promise(() => {}) : async () => Promise.reject(new Error("boom"));
        return env;
      },
    };
    const server = await startServer({
      target,
      port: 0,
      heartbeatMs: 0,
      record: { store, experimentId: "serve-broken" },
    });
    const post = (route: string, body: unknown) =>
      fetch(`${server.url}${route}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then(async (r) => (await r.json()) as { metadata: { episode_id: string } });
    const action = { tool: "get_case", args: { case_id: "C-1" } };
    for (const m of ["hang", "throw"] as const) {
      mode = m;
      const reset = await post("/reset", { family: "denied", difficulty: 1, seed: 1 });
      await post("/step", { episode_id: reset.metadata.episode_id, action, timeout_s: 0.05 });
    }
    await server.close();
    const records = await Promise.all(
      (await store.getManifest("serve-broken")).map(async (spec) => (await store.getTrial(spec.id))!),
    );
    assert.deepEqual(
      records.map((r) => [r.outcome, r.reason, r.fault ?? null, r.verdict !== undefined]),
      [
        ["timeout", "wall-clock timeout during step()", null, true],
        ["infra_error", "world crashed: boom", "world", false],
      ],
    );
  });

  test("a recorder without a store: the port's memory recorder gets the records", async () => {
    const recorder = new MemoryRecorder({ keepRecords: true });
    const server = await recordingServer({ recorder });
    await playDenied(new ServeClient(server.url), 7);
    await server.close();
    assert.equal(recorder.end, "completed");
    assert.deepEqual(
      [...(await recorder.summaries())].map((s) => s.outcome),
      ["passed"],
    );
    assert.equal(server.recordCounts()?.recorded, 1);
  });

  test("an experiment id that is stored already is refused before the server starts", async () => {
    await assert.rejects(
      recordingServer({ store, experimentId: "serve-cap" }),
      (err: ProvingError) => err.code === "experiment_exists",
    );
  });

  test("without record nothing is recorded", async () => {
    const server = await startServer({ target: worldTarget(deviceSupport), port: 0, heartbeatMs: 0 });
    assert.equal(server.experimentId, undefined);
    assert.equal(server.recordCounts(), undefined);
    await server.close();
  });
});
