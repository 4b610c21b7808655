/**
 * Issue 17 over the wire, on real sockets: what `proving serve` tells a client. Without the operator
 * token a client is told neither the task the server chose (task id, family, difficulty, seed, start
 * state hash) nor a variant's layers and params (`/metadata`) nor the harness `layers` of a step (the
 * lost reply's step says only `timeout`); what its own request decided is told (a seed decides all). The operator token's
 * holder is told everything; the gym's own remote client plays either way.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import type { JsonObject, JsonValue } from "../../src/core/json.ts";
import { defaultGym } from "../../src/gym/index.ts";
import {
  connectRemote,
  type RemoteEnvironment,
  type RunningServer,
  ServeClient,
  type StepEnvelope,
  startServer,
  WsEpisodeClient,
} from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { playPolicy } from "./play.ts";

const OPERATOR = "op-token-for-tests";
const CLIENT = "client-token-for-tests";
const LAYER = "rule.lose-reply-after-commit@1";
const VARIANT: JsonValue = {
  world: "device-support@1",
  layers: [{ id: LAYER, params: { tool: "create_replacement" } }],
};
/** A task in which the layer loses a reply: the cautious policy creates a replacement. */
const TASK = { family: "needs-approval", difficulty: 1, seed: 2 };
const TASK_KEYS = ["task_id", "family", "difficulty", "seed", "state_hash"];

/** The harness's traces in any reply: the layer's name, its param, a `layers` key. */
function assertNoLayerTrace(text: string, what: string): void {
  assert.equal(text.includes("lose-reply"), false, `${what} names the layer`);
  assert.equal(text.includes('"layers"'), false, `${what} carries step layers`);
  assert.equal(text.includes('"variant"'), false, `${what} carries the variant spec`);
}

/** The step whose reply the layer lost: its observation is a timeout. */
function lostStep(steps: StepEnvelope[]): StepEnvelope | undefined {
  return steps.find((s) => {
    const o = s.observation;
    return o.kind === "tool_result" && !o.result.ok && o.result.error.code === "timeout";
  });
}

describe("what a client is told (issue 17)", () => {
  let server: RunningServer;
  let guarded: RunningServer;
  before(async () => {
    const target = defaultGym().target(undefined, VARIANT);
    server = await startServer({ target, port: 0, heartbeatMs: 0, operatorToken: OPERATOR });
    guarded = await startServer({
      target,
      port: 0,
      heartbeatMs: 0,
      token: CLIENT,
      operatorToken: OPERATOR,
    });
  });
  after(async () => {
    await server.close();
    await guarded.close();
  });

  test("HTTP: a bare reset and /state name no task; the operator is told it", async () => {
    const client = new ServeClient(server.url);
    const first = await client.reset({});
    for (const key of TASK_KEYS) assert.equal(first.metadata[key], undefined, `reset metadata.${key}`);
    const id = String(first.metadata.episode_id);
    const state = await client.state(id);
    for (const key of TASK_KEYS.slice(0, 4)) assert.equal(state[key], null, `state.${key}`);
    assert.equal(state.episode_id, id);
    // the same episode, asked by the operator
    const operator = new ServeClient(server.url, { token: OPERATOR });
    const full = await operator.state(id);
    assert.match(String(full.task_id), /^device-support@1\/[a-z-]+\/d\d+\/s\d+$/);
    assert.equal(typeof full.seed, "number");
    const opReset = await operator.reset({});
    assert.equal(typeof opReset.metadata.seed, "number");
    assert.equal(typeof opReset.metadata.state_hash, "string");
    await client.close(id);
    await operator.close(String(opReset.metadata.episode_id));
  });

  test("HTTP: what the client's request decided is told, and only that", async () => {
    const client = new ServeClient(server.url);
    // a seed decides the whole task (family and difficulty derive from it): all of it is told
    const partial = await client.reset({ seed: 5 });
    assert.equal(partial.metadata.seed, 5);
    assert.match(String(partial.metadata.task_id), /^device-support@1\/[a-z-]+\/d1\/s5$/);
    assert.equal(typeof partial.metadata.family, "string");
    assert.equal(partial.metadata.difficulty, 1);
    assert.equal(typeof partial.metadata.state_hash, "string");
    const pid = String(partial.metadata.episode_id);
    const pstate = await client.state(pid);
    assert.equal(pstate.seed, 5);
    assert.equal(pstate.family, partial.metadata.family);
    assert.equal(pstate.task_id, partial.metadata.task_id);
    const chosen = await client.reset(TASK);
    assert.equal(chosen.metadata.task_id, "device-support@1/needs-approval/d1/s2");
    assert.equal(chosen.metadata.family, "needs-approval");
    assert.equal(typeof chosen.metadata.state_hash, "string");
    const cstate = await client.state(String(chosen.metadata.episode_id));
    assert.equal(cstate.task_id, "device-support@1/needs-approval/d1/s2");
    assert.equal(cstate.seed, 2);
    // seed -1 is no choice
    const any = await client.reset({ seed: -1, family: "denied" });
    assert.equal(any.metadata.seed, undefined);
    assert.equal(any.metadata.family, "denied");
    for (const r of [partial, chosen, any]) await client.close(String(r.metadata.episode_id));
  });

  test("HTTP: /metadata of a variant server names no layer; the operator's lists them with params", async () => {
    const res = await fetch(`${server.url}/metadata`);
    const text = await res.text();
    assertNoLayerTrace(text, "/metadata");
    const meta = JSON.parse(text) as JsonObject;
    assert.match(String(meta.environment), /^v-[0-9a-f]+$/);
    const op = await new ServeClient(server.url, { token: OPERATOR }).metadata();
    assert.deepEqual(op.variant, VARIANT);
    // neither does the OpenAPI document or the schema
    for (const path of ["/openapi.json", "/schema"]) {
      assertNoLayerTrace(await (await fetch(`${server.url}${path}`)).text(), path);
    }
  });

  test("HTTP: the step whose reply was lost says timeout and carries no layers; the operator's does", async () => {
    const client = new ServeClient(server.url);
    const first = await client.reset(TASK);
    const id = String(first.metadata.episode_id);
    const texts: string[] = [];
    const { steps, last } = await playPolicy("cautious", first, async (a) => {
      const r = await fetch(`${server.url}/step`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ episode_id: id, action: a }),
      });
      const text = await r.text();
      texts.push(text);
      return JSON.parse(text) as StepEnvelope;
    });
    assert.ok(lostStep(steps), "the layer lost a reply");
    for (const [i, t] of texts.entries()) assertNoLayerTrace(t, `step ${i + 1}`);
    assert.equal(last.done, true);
    assert.ok(last.metadata.verdict, "the verdict is told at the end");
    assertNoLayerTrace(JSON.stringify(await client.state(id)), "/state");

    const operator = new ServeClient(server.url, { token: OPERATOR });
    const opFirst = await operator.reset(TASK);
    const opId = String(opFirst.metadata.episode_id);
    const op = await playPolicy("cautious", opFirst, (a) => operator.step(opId, a));
    assert.deepEqual(lostStep(op.steps)?.metadata.layers, [LAYER]);
  });

  test("WS: reset, state and steps tell a client neither the task nor the layers; an operator connection is told both", async () => {
    const ws = await WsEpisodeClient.connect(server.url);
    const bare = await ws.reset({});
    for (const key of TASK_KEYS) assert.equal(bare.metadata[key], undefined, `WS reset metadata.${key}`);
    const bareState = await ws.state();
    assert.equal(bareState.seed, null);
    assert.equal(bareState.task_id, null);
    const first = await ws.reset(TASK);
    assert.equal(first.metadata.task_id, "device-support@1/needs-approval/d1/s2");
    const { steps } = await playPolicy("cautious", first, (a) => ws.step(a));
    assert.ok(lostStep(steps));
    for (const s of steps) assertNoLayerTrace(JSON.stringify(s), "a WS step");
    await ws.close();

    const op = await WsEpisodeClient.connect(server.url, { token: OPERATOR });
    const opBare = await op.reset({});
    assert.equal(typeof opBare.metadata.seed, "number");
    const opFirst = await op.reset(TASK);
    const played = await playPolicy("cautious", opFirst, (a) => op.step(a));
    assert.deepEqual(lostStep(played.steps)?.metadata.layers, [LAYER]);
    await op.close();
  });

  test("WS: the operator token as access_token (browsers cannot set headers)", async () => {
    const ws = new WebSocket(`${server.url.replace(/^http/, "ws")}/ws?access_token=${OPERATOR}`);
    const reply = await new Promise<{ type: string; data: StepEnvelope }>((resolve, reject) => {
      ws.once("error", reject);
      ws.once("open", () => ws.send(JSON.stringify({ type: "reset", data: {} })));
      ws.once("message", (data) => resolve(JSON.parse(String(data))));
    });
    ws.close();
    assert.equal(reply.type, "observation");
    assert.equal(typeof reply.data.metadata.seed, "number");
  });

  test("with a client token: the operator token also authorizes; the client token tells no more", async () => {
    await assert.rejects(new ServeClient(guarded.url).metadata());
    const asClient = await new ServeClient(guarded.url, { token: CLIENT }).metadata();
    assert.equal(asClient.variant, undefined);
    const asOperator = await new ServeClient(guarded.url, { token: OPERATOR }).metadata();
    assert.deepEqual(asOperator.variant, VARIANT);
    await assert.rejects(
      startServer({
        target: defaultGym().target(undefined, VARIANT),
        port: 0,
        token: "same",
        operatorToken: "same",
      }),
      /must differ/,
    );
  });

  test("the gym's remote client plays a variant server either way; only the operator's steps carry layers", async () => {
    const task = deviceSupport.generateTask(TASK);
    for (const token of [undefined, OPERATOR]) {
      const remote = await connectRemote(server.url, token ? { token } : {});
      const env = remote.environment(
        { trialId: "t", world: deviceSupport.id } as never,
        deviceSupport,
      ) as RemoteEnvironment;
      const first = await env.reset({ task, seed: TASK.seed });
      const agent = await deviceSupport.policies.cautious.start({
        episodeId: "e",
        world: deviceSupport.id,
        instruction: first.kind === "task" ? first.instruction : "",
        tools: first.kind === "task" ? first.tools : [],
        samplingSeed: 0,
      });
      let obs = first;
      const layers: unknown[] = [];
      for (let i = 0; i < 100; i++) {
        const r = await env.step({ ...(await agent.act(obs)), callId: `c${i}` });
        if (r.info.layers) layers.push(...r.info.layers);
        obs = r.observation;
        if (r.terminated || r.truncated) break;
      }
      assert.equal(env.evaluate().passed, true, `token ${token ?? "none"}`);
      assert.deepEqual(layers, token ? [LAYER] : []);
      await env.close();
      await remote.close();
    }
  });
});
