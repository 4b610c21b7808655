/**
 * OpenEnv conformance, with our own client (no OpenEnv code): the six checks of OpenEnv's
 * `openenv validate <url>` as its protocol documents them, and the wire exchanges of its generic
 * client and MCP tool client, replayed over real sockets: WS `reset`/`step`/`state`/`mcp`/`close`,
 * the `list_tools`/`call_tool` step actions, HTTP `POST /mcp` JSON-RPC (`tools/list`, `tools/call`,
 * `openenv/session/create|close`), seed `-1`, and error replies with their `errors` list.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import { type RunningServer, startServer, worldTarget } from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

/** A parsed JSON reply, read loosely: each property as another reply object; leaves narrowed by `str`/`list`. */
interface Json {
  [key: string]: Json;
}
/** A leaf that must be a string. */
function str(v: unknown): string {
  assert.equal(typeof v, "string", `expected a string, got ${JSON.stringify(v)}`);
  return v as string;
}
/** A value that must be an array of reply objects. */
function list(v: unknown): Json[] {
  assert.ok(Array.isArray(v), `expected an array, got ${JSON.stringify(v)}`);
  return v as Json[];
}

async function getJson(url: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Json };
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A minimal OpenEnv-style WS client: one request, one reply, in order. */
class OpenEnvWs {
  private queue: ((m: Json) => void)[] = [];
  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data) => this.queue.shift()?.(JSON.parse(String(data))));
  }
  static open(url: string): Promise<OpenEnvWs> {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`);
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(new OpenEnvWs(ws)));
      ws.once("error", reject);
    });
  }
  send(message: unknown): Promise<Json> {
    return new Promise((resolve) => {
      this.queue.push(resolve);
      this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
    });
  }
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.ws.once("close", () => resolve());
      this.ws.send(JSON.stringify({ type: "close" }));
    });
  }
}

describe("OpenEnv conformance", () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ target: worldTarget(deviceSupport), port: 0, heartbeatMs: 0 });
  });
  after(() => server.close());

  test("openenv validate: all six runtime criteria pass", async () => {
    const openapi = await getJson(`${server.url}/openapi.json`);
    assert.equal(openapi.status, 200);
    assert.equal(typeof openapi.body.info?.version, "string", "openapi_version_available");
    assert.match(str(openapi.body.info.version), /^1\./, "the openenv-http/1.x profile");
    const health = await getJson(`${server.url}/health`);
    assert.equal(health.status, 200);
    assert.equal(health.body.status, "healthy", "health_endpoint");
    const metadata = await getJson(`${server.url}/metadata`);
    assert.equal(typeof metadata.body.name, "string", "metadata_endpoint");
    assert.equal(typeof metadata.body.description, "string");
    const schema = await getJson(`${server.url}/schema`);
    for (const key of ["action", "observation", "state"]) {
      assert.equal(typeof schema.body[key], "object", `schema_endpoint: ${key}`);
    }
    const mcp = await postJson(`${server.url}/mcp`, {});
    assert.equal(mcp.status, 200, "mcp_endpoint");
    assert.equal(mcp.body.jsonrpc, "2.0");
    assert.equal(mcp.body.error.code, -32600, "an empty object is an Invalid Request");
    const paths = openapi.body.paths as Json;
    for (const p of ["/reset", "/step", "/state"]) assert.ok(p in paths, `mode_endpoint_consistency: ${p}`);
  });

  test("/openapi.json describes the routes that are really served", async () => {
    const { body } = await getJson(`${server.url}/openapi.json`);
    for (const [path, ops] of Object.entries(body.paths as Json)) {
      for (const method of Object.keys(ops as Json)) {
        const res = await fetch(`${server.url}${path}${path === "/state" ? "?episode_id=x" : ""}`, {
          method: method.toUpperCase(),
          ...(method === "post" ? { body: "{}", headers: { "content-type": "application/json" } } : {}),
        });
        const reply = (await res.json()) as Json;
        assert.notEqual(reply.code, "NOT_FOUND", `${method} ${path} is a route`);
      }
    }
    const undocumented = await fetch(`${server.url}/nope`);
    assert.equal(undocumented.status, 404);
  });

  test("WS: the generic client's exchange, seed -1, and OpenEnv's MCP message and actions", async () => {
    const ws = await OpenEnvWs.open(server.url);
    const reset = await ws.send({ type: "reset", data: { seed: -1, family: "denied", difficulty: 1 } });
    assert.equal(reset.type, "observation");
    assert.deepEqual(Object.keys(reset.data).sort(), ["done", "metadata", "observation", "reward"]);
    assert.equal(reset.data.done, false);
    assert.equal(reset.data.reward, null);
    // the server picked the seed: a client is not told it (issue 17), its own choices are echoed
    assert.equal(reset.data.metadata.seed, undefined);
    assert.equal(reset.data.metadata.family, "denied");
    assert.equal(reset.data.metadata.difficulty, 1);
    const caseId = str(reset.data.observation.context.case_id);

    const listed = await ws.send({
      type: "mcp",
      data: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    });
    assert.equal(listed.type, "mcp");
    assert.equal(listed.data.jsonrpc, "2.0");
    assert.equal(listed.data.id, 1);
    const names = list(listed.data.result.tools).map((t) => str(t.name));
    assert.ok(names.includes("get_case"));
    assert.equal(typeof listed.data.result.tools[0].inputSchema, "object");

    const called = await ws.send({
      type: "mcp",
      data: {
        jsonrpc: "2.0",
        id: "c1",
        method: "tools/call",
        params: { name: "get_case", arguments: { case_id: caseId } },
      },
    });
    assert.equal(called.data.id, "c1");
    assert.equal(called.data.result.isError, false);
    assert.equal(JSON.parse(str(called.data.result.content[0].text)).ok, true);
    assert.equal(called.data.result.data.case.case_id, caseId);
    assert.equal(called.data.result._meta.step_count, 1);

    const tools = await ws.send({ type: "step", data: { type: "list_tools" } });
    assert.equal(tools.type, "observation");
    assert.ok(list(tools.data.observation.tools).some((t) => str(t.name) === "close_case" && t.input_schema));
    assert.equal(tools.data.metadata.step_count, 1, "list_tools steps nothing");

    const approval = await ws.send({
      type: "step",
      data: { type: "call_tool", tool_name: "get_approval", arguments: { case_id: caseId } },
    });
    assert.equal(approval.data.observation.tool_name, "get_approval");
    assert.equal(approval.data.observation.error, null);
    assert.equal(approval.data.observation.result.approval.status, "denied");

    const bad = await ws.send({ type: "step", data: { type: "call_tool", arguments: {} } });
    assert.equal(bad.type, "error");
    assert.equal(bad.data.code, "VALIDATION_ERROR");
    assert.ok(Array.isArray(bad.data.errors) && bad.data.errors.length > 0);
    assert.deepEqual(bad.data.errors[0].loc, ["step", "data", "tool_name"]);
    const unknown = await ws.send({ type: "teleport" });
    assert.equal(unknown.data.code, "UNKNOWN_TYPE");
    assert.ok(Array.isArray(unknown.data.errors));
    const notJson = await ws.send("{nope");
    assert.equal(notJson.data.code, "INVALID_JSON");

    const end = await ws.send({
      type: "step",
      data: { tool: "close_case", args: { case_id: caseId, resolution: "denied" } },
    });
    assert.equal(end.data.done, true);
    const state = await ws.send({ type: "state" });
    assert.equal(state.type, "state");
    assert.equal(state.data.verdict.passed, true);
    assert.equal(state.data.step_count, 3);
    await ws.close();
  });

  test("HTTP MCP: session create, tools/call on it, errors as JSON-RPC, session close", async () => {
    const mcp = (body: unknown) => postJson(`${server.url}/mcp`, body);
    const created = await mcp({
      jsonrpc: "2.0",
      id: 1,
      method: "openenv/session/create",
      params: { family: "denied", difficulty: 1, seed: 4 },
    });
    const sid = str(created.body.result.session_id);
    assert.ok(sid);
    const caseId = str(created.body.result.observation.context.case_id);
    const call = await mcp({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "get_case", arguments: { case_id: caseId }, session_id: sid },
    });
    assert.equal(call.status, 200);
    assert.equal(call.body.result.structuredContent.ok, true);
    // the same episode over the HTTP routes
    const state = await getJson(`${server.url}/state?episode_id=${sid}`);
    assert.equal(state.body.step_count, 1);

    const noSession = await mcp({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "get_case" },
    });
    assert.equal(noSession.body.error.code, -32602);
    const noTool = await mcp({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "rm_rf", session_id: sid },
    });
    assert.equal(noTool.body.error.code, -32602);
    const method = await mcp({ jsonrpc: "2.0", id: 5, method: "resources/list" });
    assert.equal(method.body.error.code, -32601);
    const parse = await mcp("{oops");
    assert.equal(parse.status, 200);
    assert.equal(parse.body.error.code, -32700);
    const listed = await mcp({ jsonrpc: "2.0", id: 6, method: "tools/list" });
    assert.ok(list(listed.body.result.tools).length > 0);

    const closed = await mcp({
      jsonrpc: "2.0",
      id: 7,
      method: "openenv/session/close",
      params: { session_id: sid },
    });
    assert.equal(closed.body.result.closed, true);
    assert.equal(server.sessions.getHttp(sid), undefined);
  });

  test("HTTP: seed -1 picks a seed; other negatives and bad fields are 422 with an errors list", async () => {
    const any = await postJson(`${server.url}/reset`, { seed: -1 });
    assert.equal(any.status, 200);
    assert.equal(typeof any.body.metadata.episode_id, "string");
    assert.equal(any.body.metadata.seed, undefined, "the seed the server picked is not told");
    const bad = await postJson(`${server.url}/reset`, { seed: -7, difficulty: "x" });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "VALIDATION_ERROR");
    const locs = list(bad.body.errors).map((e) => list(e.loc).join("."));
    assert.ok(locs.includes("reset.seed") && locs.includes("reset.difficulty"), locs.join(", "));
    for (const e of list(bad.body.errors)) assert.equal(typeof e.msg, "string");
    const step = await postJson(`${server.url}/step`, {
      episode_id: any.body.metadata.episode_id,
      action: { type: "call_tool", tool_name: "get_case", arguments: { case_id: "C-0" } },
    });
    assert.equal(step.body.observation.tool_name, "get_case");
    assert.equal(step.body.observation.result.error.code, "not_found");
  });
});
