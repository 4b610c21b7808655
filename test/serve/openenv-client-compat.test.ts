/**
 * What OpenEnv's own clients need from `proving serve` (issue 28): the reset's instruction and public
 * task context where OpenEnv's MCP tool client keeps them (the observation's own `metadata`: of a
 * reset's observation it keeps only that and the tools), and plain HTTP resets, which OpenEnv's HTTP clients never close,
 * that do not pin a session slot for the long idle timeout; and `WS /mcp`.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";
import type { TaskObservation } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { ServeClient, startServer, WsEpisodeClient, worldTarget } from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { eventually } from "./play.ts";

test("a reset's metadata carries the instruction and the public task context (HTTP and WS), nothing hidden", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
  try {
    const http = await new ServeClient(server.url).reset({});
    const task = http.observation as unknown as TaskObservation;
    assert.equal(task.kind, "task");
    assert.equal(http.metadata.instruction, task.instruction);
    assert.deepEqual(http.metadata.context, task.context);
    // an unseeded reset is still not told the task the server drew
    assert.equal(http.metadata.task_id, undefined);
    assert.equal(http.metadata.seed, undefined);
    const ws = await WsEpisodeClient.connect(server.url);
    try {
      const r = await ws.reset({ seed: 3 });
      const wsTask = r.observation as unknown as TaskObservation;
      assert.equal(r.metadata.instruction, wsTask.instruction);
      assert.deepEqual(r.metadata.context, wsTask.context);
      // our client hands on the world's observation: no copy of them inside it
      assert.deepEqual(Object.keys(wsTask).sort(), ["context", "instruction", "kind", "tools"]);
    } finally {
      await ws.close();
    }
    // on the wire they are inside the observation too: OpenEnv's MCPToolClient keeps of a reset's
    // observation only its tools and its own `metadata` (never the reply's)
    const raw = new WebSocket(`${server.url.replace(/^http/, "ws")}/ws`);
    await once(raw, "open");
    raw.send(JSON.stringify({ type: "reset", data: { seed: 3 } }));
    const [message] = await once(raw, "message");
    raw.close();
    const observation = (JSON.parse(String(message)) as { data: { observation: JsonObject } }).data
      .observation;
    const inside = observation.metadata as JsonObject;
    assert.equal(inside.instruction, observation.instruction);
    assert.deepEqual(inside.context, observation.context);
    assert.equal(inside.task_id, undefined, "nothing the reply's metadata would not tell");
  } finally {
    await server.close();
  }
});

test("plain HTTP resets never closed do not pin a slot: a short HTTP idle timeout by default, WS sessions keep the long one", async () => {
  const defaults = await startServer({ target: worldTarget(deviceSupport), port: 0 });
  try {
    assert.equal(defaults.sessions.idleTimeoutMs, 300_000);
    assert.equal(defaults.sessions.httpIdleTimeoutMs, 60_000);
  } finally {
    await defaults.close();
  }
  const server = await startServer({
    target: worldTarget(deviceSupport),
    port: 0,
    httpIdleTimeoutMs: 2000,
    idleTimeoutMs: 60_000,
  });
  const ws = await WsEpisodeClient.connect(server.url);
  try {
    await ws.reset({ seed: 1 });
    // a session opened as one (OpenEnv's openenv/session/create) keeps the long idle timeout
    const created = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "openenv/session/create", params: {} }),
    });
    const sessionId = String(((await created.json()) as { result: JsonObject }).result.session_id);
    const http = new ServeClient(server.url);
    for (let i = 0; i < 5; i++) await http.reset({ seed: i });
    assert.equal(server.sessions.counts().http, 6);
    await eventually(() => server.sessions.counts().http === 1, 10_000, "plain reset sessions reclaimed");
    await sleep(100);
    assert.ok(server.sessions.getHttp(sessionId), "the created session stays");
    assert.equal(server.sessions.counts().ws, 1, "the WS session stays");
    assert.equal((await ws.step({ tool: "get_case", args: { case_id: "C-0" } })).done, false);
  } finally {
    await ws.close();
    await server.close();
  }
});

test("OpenEnv-style resets at --max-sessions: the next reset evicts the oldest idle one instead of failing for 300 s", async () => {
  const server = await startServer({
    target: worldTarget(deviceSupport),
    port: 0,
    maxSessions: 2,
    evictAfterMs: 200,
  });
  try {
    const http = new ServeClient(server.url);
    await http.reset({ seed: 1 });
    await http.reset({ seed: 2 });
    await sleep(300);
    for (let i = 0; i < 6; i++) {
      await http.reset({ seed: 10 + i });
      await sleep(250);
    }
    assert.equal(server.sessions.size, 2);
    assert.equal(server.sessions.counts().evicted, 6);
  } finally {
    await server.close();
  }
});

/** A `ws` client on `/mcp`: each request's reply, in order (a notification gets none). */
async function mcpSocket(url: string): Promise<{ rpc: (msg: object) => Promise<JsonObject>; ws: WebSocket }> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/mcp`);
  const replies: JsonObject[] = [];
  const waiting: ((m: JsonObject) => void)[] = [];
  ws.on("message", (data) => {
    const m = JSON.parse(String(data)) as JsonObject;
    const w = waiting.shift();
    if (w) w(m);
    else replies.push(m);
  });
  await once(ws, "open");
  const next = () =>
    new Promise<JsonObject>((resolve) => {
      const r = replies.shift();
      if (r) resolve(r);
      else waiting.push(resolve);
    });
  return {
    ws,
    rpc: (msg) => {
      ws.send(JSON.stringify(msg));
      return next();
    },
  };
}

test("WS /mcp: JSON-RPC over a WebSocket, one episode per connection (OpenEnv's MCP WebSocket)", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
  const { ws, rpc } = await mcpSocket(server.url);
  try {
    await eventually(() => server.sessions.counts().ws === 1, 5000, "the connection's session");
    const init = await rpc({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
    assert.equal((init.result as JsonObject).serverInfo !== undefined, true);
    // a notification is not answered: the next reply is the next request's
    ws.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const list = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const names = ((list.result as JsonObject).tools as JsonObject[]).map((t) => t.name);
    assert.equal(list.id, 2);
    assert.ok(names.includes("get_case") && names.includes("reset"));
    const reset = await rpc({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "reset", arguments: { seed: 4, family: "denied", difficulty: 1 } },
    });
    const structured = (reset.result as JsonObject).structuredContent as JsonObject;
    const caseId = String(((structured.observation as JsonObject).context as JsonObject).case_id);
    const call = await rpc({
      jsonrpc: "2.0",
      id: "four",
      method: "tools/call",
      params: { name: "get_case", arguments: { case_id: caseId } },
    });
    assert.equal(call.id, "four");
    assert.equal((call.result as JsonObject).isError, false);
    const bad = await rpc({ jsonrpc: "2.0", id: 5, method: "no/such" });
    assert.equal((bad.error as JsonObject).code, -32601);
    ws.send("{not json");
    const parse = await new Promise<JsonObject>((resolve) =>
      ws.once("message", (d) => resolve(JSON.parse(String(d)) as JsonObject)),
    );
    assert.equal((parse.error as JsonObject).code, -32700);
  } finally {
    ws.close();
    await eventually(() => server.sessions.size === 0, 5000, "closing the socket ends its session");
    await server.close();
  }
});
