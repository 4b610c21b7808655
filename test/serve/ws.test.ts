import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import {
  type RunningServer,
  ServeClient,
  ServeClientError,
  startServer,
  WsEpisodeClient,
  worldTarget,
} from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { caseIdOf, eventually, playPolicy } from "./play.ts";

function isCode(code: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ServeClientError, `expected ServeClientError, got ${String(err)}`);
    assert.equal(err.wireCode, code);
    return true;
  };
}

/** Opens a raw TCP connection, completes a WS upgrade, then never reads or answers again (a half-open peer). */
async function halfOpenPeer(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("error", reject);
  });
  socket.write(
    `GET /ws HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
      "Upgrade: websocket\r\nConnection: Upgrade\r\n" +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
  );
  await new Promise<void>((resolve) => socket.once("data", () => resolve()));
  socket.pause(); // stop reading: pings go unanswered
  socket.on("error", () => undefined);
  return socket;
}

describe("serve over WebSocket", () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
  });
  after(() => server.close());

  test("an episode plays to completion; the verdict is in the final step and in state", async () => {
    const ws = await WsEpisodeClient.connect(server.url);
    try {
      const first = await ws.reset({ family: "lost-reply", difficulty: 3, seed: 11 });
      assert.equal(first.observation.kind, "task");
      const { last, steps } = await playPolicy("cautious", first, (a) => ws.step(a));
      assert.ok(steps.length > 3);
      assert.equal(last.done, true);
      assert.equal((last.metadata.verdict as { passed: boolean }).passed, true);
      const state = await ws.state();
      assert.equal(state.done, true);
      assert.deepEqual(state.verdict, last.metadata.verdict);
      await assert.rejects(ws.step({ tool: "get_case", args: {} }), isCode("SESSION_ERROR"));
      // a new reset on the same connection starts over
      const again = await ws.reset({ family: "lost-reply", difficulty: 3, seed: 11 });
      assert.equal(again.metadata.state_hash, first.metadata.state_hash);
      assert.equal((await ws.state()).verdict, undefined);
    } finally {
      await ws.close();
    }
    await eventually(() => server.sessions.size === 0, 5000, "session freed on close");
  });

  test("a failing policy's verdict comes from the verifier", async () => {
    const ws = await WsEpisodeClient.connect(server.url);
    const first = await ws.reset({ family: "lost-reply", difficulty: 2, seed: 4 });
    const { last } = await playPolicy("claims-success", first, (a) => ws.step(a));
    assert.equal((last.metadata.verdict as { passed: boolean }).passed, false);
    await ws.close();
  });

  test("malformed JSON, unknown types and bad messages are coded errors; the connection stays usable", async () => {
    const ws = await WsEpisodeClient.connect(server.url);
    try {
      const bad = await ws.sendRaw("{nope");
      assert.equal(bad.type, "error");
      assert.equal((bad.data as { code: string }).code, "INVALID_JSON");
      const unknown = await ws.sendRaw(JSON.stringify({ type: "teleport", data: {} }));
      assert.equal((unknown.data as { code: string }).code, "UNKNOWN_TYPE");
      const noType = await ws.sendRaw(JSON.stringify({ data: {} }));
      assert.equal((noType.data as { code: string }).code, "VALIDATION_ERROR");
      const early = await ws.sendRaw(JSON.stringify({ type: "step", data: { tool: "get_case", args: {} } }));
      assert.equal((early.data as { code: string }).code, "SESSION_ERROR");
      const badAction = await ws.sendRaw(JSON.stringify({ type: "step", data: { args: {} } }));
      assert.equal((badAction.data as { code: string }).code, "VALIDATION_ERROR");
      const params = await ws.sendRaw(JSON.stringify({ type: "reset", data: { params: {} } }));
      assert.equal((params.data as { code: string }).code, "VALIDATION_ERROR");
      const ok = await ws.reset({ seed: 1 });
      assert.equal(ok.done, false);
    } finally {
      await ws.close();
    }
  });

  test("replies keep request order with several requests in flight", async () => {
    const ws = await WsEpisodeClient.connect(server.url);
    const first = await ws.reset({ family: "denied", seed: 3 });
    const caseId = caseIdOf(first);
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => ws.step({ tool: "get_approval", args: { case_id: caseId } })),
    );
    assert.deepEqual(
      replies.map((r) => r.metadata.step_count),
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
    await ws.close();
  });

  test("a WS session cannot be reached over HTTP by its episode id", async () => {
    const ws = await WsEpisodeClient.connect(server.url);
    const first = await ws.reset({ episode_id: "ws-private", seed: 1 });
    assert.equal(first.metadata.episode_id, "ws-private");
    const http = new ServeClient(server.url);
    await assert.rejects(http.state("ws-private"), isCode("SESSION_ERROR"));
    await assert.rejects(http.step("ws-private", { tool: "get_case", args: {} }), isCode("SESSION_ERROR"));
    assert.equal((await ws.state()).step_count, 0);
    await ws.close();
  });
});

describe("capacity", () => {
  test("past the cap, WS and HTTP get CAPACITY_REACHED at once; closing frees a slot", async () => {
    const server = await startServer({ target: worldTarget(deviceSupport), port: 0, maxSessions: 3 });
    try {
      const http = new ServeClient(server.url);
      const attempts = await Promise.allSettled(
        Array.from({ length: 10 }, async () => {
          const ws = await WsEpisodeClient.connect(server.url);
          await ws.reset({ seed: 1 });
          return ws;
        }),
      );
      const ok = attempts.filter((a) => a.status === "fulfilled");
      const refused = attempts.filter((a) => a.status === "rejected");
      assert.equal(ok.length, 3);
      assert.equal(refused.length, 7);
      for (const r of refused) isCode("CAPACITY_REACHED")((r as PromiseRejectedResult).reason);
      await assert.rejects(http.reset({ seed: 1 }), (err: unknown) => {
        isCode("CAPACITY_REACHED")(err);
        assert.equal((err as ServeClientError).status, 503);
        assert.equal((err as ServeClientError).data.max_sessions, 3);
        return true;
      });
      assert.equal(server.sessions.size, 3);
      await (ok[0] as PromiseFulfilledResult<WsEpisodeClient>).value.close();
      await eventually(() => server.sessions.size === 2, 5000, "slot freed");
      const r = await http.reset({ seed: 1 });
      assert.equal(r.done, false);
      for (const a of ok.slice(1)) await (a as PromiseFulfilledResult<WsEpisodeClient>).value.close();
    } finally {
      await server.close();
    }
  });

  test("half-open connections are reclaimed by the heartbeat, so the server never stays at capacity", async () => {
    const server = await startServer({
      target: worldTarget(deviceSupport),
      port: 0,
      maxSessions: 2,
      heartbeatMs: 500,
      idleTimeoutMs: 0, // reaper off: only the heartbeat can reclaim them
    });
    const peers: net.Socket[] = [];
    try {
      peers.push(await halfOpenPeer(server.url), await halfOpenPeer(server.url));
      await eventually(() => server.sessions.size === 2, 5000, "two sessions held");
      await assert.rejects(new ServeClient(server.url).reset({ seed: 1 }), isCode("CAPACITY_REACHED"));
      await eventually(() => server.sessions.size === 0, 10_000, "half-open sessions reclaimed");
      const ws = await WsEpisodeClient.connect(server.url);
      assert.equal((await ws.reset({ seed: 1 })).done, false);
      await ws.close();
    } finally {
      for (const p of peers) p.destroy();
      await server.close();
    }
  });

  test("a WS frame over the size limit closes the connection and frees its session", async () => {
    const server = await startServer({ target: worldTarget(deviceSupport), port: 0, maxBodyBytes: 2048 });
    try {
      const ws = await WsEpisodeClient.connect(server.url);
      await ws.reset({ seed: 1 });
      await assert.rejects(
        ws.step({ tool: "get_case", args: { case_id: "x".repeat(4096) } }),
        (err: unknown) => err instanceof ServeClientError && err.data.close_code === 1009,
      );
      await eventually(() => server.sessions.size === 0, 5000, "session freed");
    } finally {
      await server.close();
    }
  });

  test("an idle WS session is reclaimed and its client told so", async () => {
    const server = await startServer({ target: worldTarget(deviceSupport), port: 0, idleTimeoutMs: 50 });
    try {
      const ws = await WsEpisodeClient.connect(server.url);
      await eventually(() => !ws.isOpen, 10_000, "idle connection closed");
      await assert.rejects(ws.state(), isCode("SESSION_ERROR"));
      assert.equal(server.sessions.size, 0);
      assert.equal(server.sessions.counts().reaped, 1);
    } finally {
      await server.close();
    }
  });
});
