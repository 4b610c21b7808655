import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import {
  type RunningServer,
  ServeClient,
  ServeClientError,
  startServer,
  WsEpisodeClient,
  worldTarget,
} from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { caseIdOf, playPolicy } from "./play.ts";

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function expectCode(work: Promise<unknown>, code: string, status?: number) {
  await assert.rejects(work, (err: unknown) => {
    assert.ok(err instanceof ServeClientError, `expected ServeClientError, got ${String(err)}`);
    assert.equal(err.wireCode, code);
    if (status !== undefined) assert.equal(err.status, status);
    return true;
  });
}

describe("serve over HTTP", () => {
  let server: RunningServer;
  let client: ServeClient;
  before(async () => {
    server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
    client = new ServeClient(server.url);
  });
  after(() => server.close());

  test("health, metadata and schema describe the world", async () => {
    assert.deepEqual(await client.health(), { status: "healthy" });
    const meta = await client.metadata();
    assert.equal(meta.world, "device-support@1");
    assert.deepEqual(meta.terminal_tools, ["close_case"]);
    assert.ok(meta.tools.some((t) => t.name === "create_replacement"));
    const schema = await client.schema();
    const oneOf = schema.action.oneOf as { title: string }[];
    assert.deepEqual(
      oneOf.map((s) => s.title).sort(),
      deviceSupport
        .create()
        .spec.tools.map((t) => t.name)
        .concat(["call_tool", "list_tools"]) // OpenEnv's MCP actions
        .sort(),
    );
    assert.ok(schema.observation && schema.state);
  });

  test("an episode plays to completion; the verdict is in the final metadata and in /state after the end", async () => {
    const first = await client.reset({ family: "needs-approval", difficulty: 2, seed: 7 });
    assert.equal(first.observation.kind, "task");
    assert.equal(first.done, false);
    assert.equal(first.metadata.task_id, "device-support@1/needs-approval/d2/s7");
    const id = String(first.metadata.episode_id);
    const { last, steps } = await playPolicy("cautious", first, (a) => client.step(id, a));
    // no verdict before the end: not in any earlier step, and not in /state mid-episode
    for (const s of steps.slice(0, -1)) assert.equal(s.metadata.verdict, undefined);
    assert.equal(last.done, true);
    assert.equal(last.metadata.terminated, true);
    const verdict = last.metadata.verdict as { passed: boolean; verifier: string };
    assert.equal(verdict.passed, true);
    assert.equal(verdict.verifier, "verify.device-support@1");
    assert.equal(last.reward, 1);
    // every step carries its metadata (virtual time, step count)
    steps.forEach((s, i) => {
      assert.equal(s.metadata.step_count, i + 1);
      assert.equal(typeof s.metadata.now, "number");
      assert.equal(s.metadata.episode_id, id);
    });
    const state = await client.state(id);
    assert.equal(state.done, true);
    assert.equal(state.step_count, steps.length);
    assert.deepEqual(state.verdict, last.metadata.verdict);
    await expectCode(client.step(id, { tool: "get_case", args: {} }), "SESSION_ERROR", 409);
    assert.deepEqual(await client.close(id), { episode_id: id, closed: true });
    await expectCode(client.state(id), "SESSION_ERROR", 404);
  });

  test("/state mid-episode holds no verdict and no hidden task parameters", async () => {
    const first = await client.reset({ family: "lost-reply", seed: 3, difficulty: 1 });
    const id = String(first.metadata.episode_id);
    const caseId = caseIdOf(first);
    await client.step(id, { tool: "get_case", args: { case_id: caseId } });
    const state = await client.state(id);
    assert.equal(state.verdict, undefined);
    assert.equal(state.done, false);
    assert.equal(JSON.stringify(state).includes("params"), false);
    await client.close(id);
  });

  test("episode ids keep separate sessions; interleaved steps do not mix", async () => {
    const a = await client.reset({ episode_id: "alpha", family: "approved-replacement", seed: 1 });
    const b = await client.reset({ episode_id: "beta", family: "denied", difficulty: 1, seed: 2 });
    assert.equal(a.metadata.episode_id, "alpha");
    assert.equal(b.metadata.episode_id, "beta");
    const queueA: Parameters<ServeClient["step"]>[1][] = [];
    // interleave the two episodes step by step
    const [ra, rb] = await Promise.all([
      playPolicy("cautious", a, async (act) => {
        queueA.push(act);
        return client.step("alpha", act);
      }),
      playPolicy("cautious", b, (act) => client.step("beta", act)),
    ]);
    assert.equal((ra.last.metadata.verdict as { passed: boolean }).passed, true);
    assert.equal((rb.last.metadata.verdict as { passed: boolean }).passed, true);
    assert.equal((await client.state("alpha")).step_count, queueA.length);
    assert.equal((await client.state("beta")).task_id, "device-support@1/denied/d1/s2");
    await client.close("alpha");
    await client.close("beta");
  });

  test("reset with an existing episode_id restarts that episode from a clean state", async () => {
    const first = await client.reset({ episode_id: "again", family: "approved-replacement", seed: 5 });
    const id = "again";
    const caseId = caseIdOf(first);
    await client.step(id, { tool: "close_case", args: { case_id: caseId, resolution: "no_action" } });
    assert.equal((await client.state(id)).done, true);
    const second = await client.reset({ episode_id: id, family: "approved-replacement", seed: 5 });
    assert.equal(second.metadata.state_hash, first.metadata.state_hash);
    const state = await client.state(id);
    assert.equal(state.step_count, 0);
    assert.equal(state.done, false);
    assert.equal(state.verdict, undefined);
    await client.close(id);
  });

  test("malformed JSON, bad fields and unknown routes are coded errors", async () => {
    const bad = await post(`${server.url}/reset`, "{not json");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, "INVALID_JSON");
    const badStep = await post(`${server.url}/step`, "[1,2");
    assert.equal(badStep.body.code, "INVALID_JSON");
    const noAction = await post(`${server.url}/step`, JSON.stringify({ episode_id: "x" }));
    assert.equal(noAction.status, 422);
    assert.equal(noAction.body.code, "VALIDATION_ERROR");
    await expectCode(client.reset({ seed: -2 }), "VALIDATION_ERROR", 422); // -1 asks for any seed
    await expectCode(client.reset({ family: "no-such-family" }), "VALIDATION_ERROR", 422);
    await expectCode(client.reset({ family: "denied", difficulty: 99 }), "VALIDATION_ERROR", 422);
    await expectCode(client.step("never-reset", { tool: "get_case", args: {} }), "SESSION_ERROR", 404);
    const missingId = await post(
      `${server.url}/step`,
      JSON.stringify({ action: { tool: "get_case", args: {} } }),
    );
    assert.equal(missingId.body.code, "VALIDATION_ERROR");
    const res = await fetch(`${server.url}/nope`);
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { code: string }).code, "NOT_FOUND");
  });

  test("a bad tool call is an error observation, not a protocol error", async () => {
    const first = await client.reset({ family: "denied", seed: 4 });
    const id = String(first.metadata.episode_id);
    const echoed = await client.step(
      id,
      { tool: "get_case", args: { case_id: caseIdOf(first) } },
      {
        requestId: "req-7",
        timeoutS: 5,
      },
    );
    assert.equal(echoed.metadata.request_id, "req-7");
    const r = await client.step(id, { tool: "no_such_tool", args: {} });
    assert.equal(r.observation.kind, "tool_result");
    assert.equal((r.observation as { result: { ok: boolean } }).result.ok, false);
    assert.equal(r.done, false);
    await client.close(id);
  });

  test("nothing the client sends reaches the verifier: task params, verdicts and extra action fields are refused", async () => {
    for (const field of ["params", "task", "verdict"]) {
      const r = await post(`${server.url}/reset`, JSON.stringify({ seed: 1, [field]: { passed: true } }));
      assert.equal(r.status, 422, field);
      assert.equal(r.body.code, "VALIDATION_ERROR");
    }
    const first = await client.reset({ family: "approved-replacement", seed: 9 });
    const id = String(first.metadata.episode_id);
    const caseId = caseIdOf(first);
    const sneaky = await post(
      `${server.url}/step`,
      JSON.stringify({
        episode_id: id,
        action: {
          tool: "close_case",
          args: { case_id: caseId, resolution: "no_action" },
          verdict: { passed: true },
        },
      }),
    );
    assert.equal(sneaky.status, 422);
    assert.equal(sneaky.body.code, "VALIDATION_ERROR");
    assert.equal((await client.state(id)).step_count, 0);
    // closing without doing the work is judged by the verifier, whatever the client claims
    const end = await client.step(id, {
      tool: "close_case",
      args: { case_id: caseId, resolution: "replacement_created" },
    });
    assert.equal(end.done, true);
    assert.equal((end.metadata.verdict as { passed: boolean }).passed, false);
    await client.close(id);
  });

  test("a loopback server refuses requests whose Host is not loopback (DNS rebinding)", async () => {
    const { port } = new URL(server.url);
    const status = (host: string, path = "/metadata") =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, path, headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      });
    assert.equal(await status("evil.example"), 403);
    assert.equal(await status(`evil.example:${port}`), 403);
    assert.equal(await status(`localhost:${Number(port) + 1}`), 403);
    assert.equal(await status(`localhost:${port}`), 200);
    assert.equal(await status(`127.0.0.1:${port}`), 200);
  });

  test("bodies over the size limit are refused with 413", async () => {
    const small = await startServer({ target: worldTarget(deviceSupport), port: 0, maxBodyBytes: 1024 });
    try {
      const r = await post(`${small.url}/reset`, JSON.stringify({ seed: 1, pad: "x".repeat(4096) }));
      assert.equal(r.status, 413);
      assert.equal(r.body.code, "PAYLOAD_TOO_LARGE");
      assert.equal(small.sessions.size, 0);
    } finally {
      await small.close();
    }
  });

  test("the server truncates an episode at its step cap, with a verdict", async () => {
    const capped = await startServer({ target: worldTarget(deviceSupport), port: 0, maxSteps: 3 });
    try {
      const c = new ServeClient(capped.url);
      const first = await c.reset({ family: "denied", seed: 1 });
      const id = String(first.metadata.episode_id);
      let r = first;
      for (let i = 0; i < 3; i++) r = await c.step(id, { tool: "wait", args: { seconds: 1 } });
      assert.equal(r.done, true);
      assert.equal(r.metadata.truncated, true);
      assert.equal(r.metadata.terminated, false);
      assert.equal((r.metadata.verdict as { passed: boolean }).passed, false);
      assert.equal((await c.state(id)).truncated, true);
    } finally {
      await capped.close();
    }
  });
});

describe("bearer token", () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ target: worldTarget(deviceSupport), port: 0, token: "s3cret" });
  });
  after(() => server.close());

  test("HTTP routes need the token; /health does not", async () => {
    assert.deepEqual(await new ServeClient(server.url).health(), { status: "healthy" });
    await expectCode(new ServeClient(server.url).reset({ seed: 1 }), "UNAUTHORIZED", 401);
    await expectCode(new ServeClient(server.url, { token: "wrong" }).metadata(), "UNAUTHORIZED", 401);
    await expectCode(new ServeClient(server.url, { token: "s3cret!" }).metadata(), "UNAUTHORIZED", 401);
    const ok = new ServeClient(server.url, { token: "s3cret" });
    const r = await ok.reset({ seed: 1 });
    assert.equal(r.done, false);
    await ok.close(String(r.metadata.episode_id));
    assert.equal(server.sessions.size, 0);
  });

  test("WS upgrades need the token (header or access_token)", async () => {
    await expectCode(WsEpisodeClient.connect(server.url), "UNAUTHORIZED", 401);
    await expectCode(WsEpisodeClient.connect(server.url, { token: "nope" }), "UNAUTHORIZED", 401);
    const ws = await WsEpisodeClient.connect(server.url, { token: "s3cret" });
    assert.equal((await ws.reset({ seed: 2 })).done, false);
    await ws.close();
    const viaQuery = new WebSocket(`${server.url.replace(/^http/, "ws")}/ws?access_token=s3cret`);
    await new Promise<void>((resolve, reject) => {
      viaQuery.once("open", () => resolve());
      viaQuery.once("error", reject);
    });
    viaQuery.close();
    const res = await fetch(`${server.url}/metadata?access_token=s3cret`);
    assert.equal(res.status, 401, "the query token is for WS upgrades only");
  });
});
