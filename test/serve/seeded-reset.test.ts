/**
 * Issue 26, seeded resets that mean something, over real servers: a reset with a seed and no
 * family/difficulty derives them from the seed (`task-choice.ts`), so the same request gives the same
 * episode (task id, initial observation) on every server of the same world and defaults, over HTTP,
 * WebSocket and MCP; the reply names the task's public id. A reset without a seed still hides what the
 * server drew.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Observation } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { Rng } from "../../src/core/rng.ts";
import { worldResetObservation } from "../../src/protocol/openenv-observations.ts";
import {
  type RunningServer,
  ServeClient,
  type StepEnvelope,
  startServer,
  WsEpisodeClient,
  worldTarget,
} from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

const TASK_ID = /^device-support@1\/[a-z-]+\/d\d+\/s\d+$/;
const FAMILIES = deviceSupport.families.map((f) => f.name);

async function resetOnce(client: ServeClient, params: Parameters<ServeClient["reset"]>[0]) {
  const r = await client.reset(params);
  await client.close(String(r.metadata.episode_id));
  return r;
}

/**
 * What makes two episodes the same: the task and its initial observation. (The start state hash also
 * covers the scheduler's jobs, which some worlds key by the episode id: equal for equal `episode_id`s.)
 */
const episodeOf = (r: StepEnvelope) => ({
  task_id: r.metadata.task_id,
  family: r.metadata.family,
  difficulty: r.metadata.difficulty,
  seed: r.metadata.seed,
  observation: r.observation,
});

describe("seeded resets (issue 26)", () => {
  let server: RunningServer;
  let twin: RunningServer;
  let hard: RunningServer;
  before(async () => {
    server = await startServer({ target: worldTarget(deviceSupport), port: 0, heartbeatMs: 0 });
    twin = await startServer({ target: worldTarget(deviceSupport), port: 0, heartbeatMs: 0 });
    hard = await startServer({
      target: worldTarget(deviceSupport),
      port: 0,
      heartbeatMs: 0,
      difficulties: [1, 2, 3],
    });
  });
  after(async () => {
    await server.close();
    await twin.close();
    await hard.close();
  });

  test("three resets with seed 123 give one episode, told by its public task id", async () => {
    const client = new ServeClient(server.url);
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await resetOnce(client, { seed: 123 }));
    const [first, ...rest] = runs.map(episodeOf);
    assert.match(String(first.task_id), TASK_ID);
    assert.ok(String(first.task_id).endsWith("/s123"));
    // the documented rule: the family is the first pick of Rng.seeded(seed, "proving-serve/reset/<world>")
    assert.equal(first.family, Rng.seeded(123, "proving-serve/reset/device-support@1").pick(FAMILIES));
    assert.equal(first.difficulty, 1, "the server's default difficulties: [1]");
    assert.equal(first.seed, 123);
    for (const r of rest) assert.deepEqual(r, first);
    // with the same episode id, the start state too
    const hashes = new Set<unknown>();
    for (let i = 0; i < 2; i++)
      hashes.add((await resetOnce(client, { seed: 123, episode_id: "ep-123" })).metadata.state_hash);
    assert.equal(hashes.size, 1);
    assert.equal(typeof [...hashes][0], "string");
    // the same on another server of the same world and defaults
    assert.deepEqual(episodeOf(await resetOnce(new ServeClient(twin.url), { seed: 123 })), first);
    // and the same as sending the family and difficulty the seed derived
    const full = await resetOnce(client, {
      seed: 123,
      family: String(first.family),
      difficulty: Number(first.difficulty),
    });
    assert.deepEqual(episodeOf(full), first);
  });

  test("seeds 123 and 124 are different tasks, and seeds spread over the families", async () => {
    const client = new ServeClient(server.url);
    const a = await resetOnce(client, { seed: 123 });
    const b = await resetOnce(client, { seed: 124 });
    assert.notEqual(a.metadata.task_id, b.metadata.task_id);
    const seen = new Set<string>();
    for (let seed = 0; seed < 24; seed++)
      seen.add(String((await resetOnce(client, { seed })).metadata.family));
    assert.ok(seen.size >= 3, `24 seeds derived only ${[...seen].join(", ")}`);
  });

  test("the derived difficulty is one the server allows, and a sent family keeps the seed's difficulty draw", async () => {
    const client = new ServeClient(hard.url);
    const difficulties = new Set<number>();
    for (let seed = 0; seed < 16; seed++) {
      const r = await resetOnce(client, { seed });
      const again = await resetOnce(client, { seed });
      assert.deepEqual(episodeOf(again), episodeOf(r));
      difficulties.add(Number(r.metadata.difficulty));
    }
    assert.ok([...difficulties].every((d) => [1, 2, 3].includes(d)));
    assert.ok(difficulties.size >= 2, `16 seeds derived only difficulty ${[...difficulties].join(", ")}`);
    // family sent, difficulty derived: still decided by the request, so told in full
    const f = await resetOnce(client, { seed: 9, family: "denied" });
    assert.equal(f.metadata.family, "denied");
    assert.match(String(f.metadata.task_id), /^device-support@1\/denied\/d[123]\/s9$/);
    assert.deepEqual(episodeOf(await resetOnce(client, { seed: 9, family: "denied" })), episodeOf(f));
  });

  test("a reset that sends family, difficulty and seed is what it was", async () => {
    const client = new ServeClient(server.url);
    const r = await resetOnce(client, { family: "needs-approval", difficulty: 2, seed: 7 });
    assert.equal(r.metadata.task_id, "device-support@1/needs-approval/d2/s7");
    assert.equal(r.metadata.family, "needs-approval");
    assert.equal(r.metadata.difficulty, 2);
    assert.equal(r.metadata.seed, 7);
  });

  test("a reset without a seed still hides what the server drew", async () => {
    const client = new ServeClient(server.url);
    for (const params of [{}, { seed: -1 }, { seed: -1, family: "denied" }]) {
      const r = await resetOnce(client, params);
      for (const key of ["task_id", "seed", "state_hash"]) assert.equal(r.metadata[key], undefined, key);
    }
  });

  test("WebSocket and MCP resets with seed 123 are the HTTP one, with its task id", async () => {
    const http = episodeOf(await resetOnce(new ServeClient(server.url), { seed: 123 }));
    const ws = await WsEpisodeClient.connect(server.url);
    try {
      const viaWs = await ws.reset({ seed: 123 });
      assert.deepEqual(episodeOf(viaWs), http);
      assert.equal((await ws.state()).task_id, http.task_id);
    } finally {
      await ws.close();
    }
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "openenv/session/create",
        params: { seed: 123 },
      }),
    });
    const { result } = (await res.json()) as { result: JsonObject };
    const metadata = result.metadata as JsonObject;
    assert.equal(metadata.task_id, http.task_id);
    // the wire's reset observation, as our clients hand it on (`worldResetObservation`)
    assert.deepEqual(worldResetObservation(result.observation as unknown as Observation), http.observation);
    await new ServeClient(server.url).close(String(result.session_id));
  });
});
