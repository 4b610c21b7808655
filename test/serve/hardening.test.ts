/**
 * The attacker findings, over real sockets on 127.0.0.1: deep and long JSON are refused with a 4xx
 * (HTTP and WS) before any parser recursion; a message never echoes a huge input whole; a browser
 * page from another origin can neither POST nor open a WebSocket unless the server allows its origin.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import { type RunningServer, startServer, worldTarget } from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;

async function post(url: string, path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as Record<string, unknown> };
}

/** Opens a WS and resolves with its first message (or rejects with the upgrade's refusal status). */
function wsExchange(
  url: string,
  messages: string[],
  headers: Record<string, string> = {},
): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`, { headers });
    const replies: unknown[] = [];
    ws.on("unexpected-response", (_req, res) => {
      reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode }));
    });
    ws.on("error", reject);
    ws.on("open", () => {
      for (const m of messages) ws.send(m);
    });
    ws.on("message", (data) => {
      replies.push(JSON.parse(String(data)));
      if (replies.length === messages.length) {
        ws.close();
        resolve(replies);
      }
    });
  });
}

describe("serve hardening: limits, quoting, origins", () => {
  let server: RunningServer;
  let permissive: RunningServer;
  before(async () => {
    server = await startServer({ target: worldTarget(deviceSupport), port: 0, heartbeatMs: 0 });
    permissive = await startServer({
      target: worldTarget(deviceSupport),
      port: 0,
      heartbeatMs: 0,
      allowOrigins: ["https://app.example"],
      maxJsonDepth: 8,
      maxStringLength: 1000,
    });
  });
  after(async () => {
    await server.close();
    await permissive.close();
  });

  for (const depth of [10_000, 100_000]) {
    test(`HTTP: ${depth}-deep JSON is a 422 VALIDATION_ERROR, not a 500`, async () => {
      for (const body of [deep(depth), deepObject(depth), `{"action":${deep(depth)}}`]) {
        const r = await post(server.url, "/reset", body);
        assert.equal(r.status, 422, r.text.slice(0, 200));
        assert.equal(r.json.code, "VALIDATION_ERROR");
        assert.equal(r.json.limit, "max_depth");
        assert.match(String(r.json.message), /nested deeper than 64/);
        assert.ok(Array.isArray(r.json.errors) && r.json.errors.length > 0);
      }
      // the server still serves
      const ok = await post(server.url, "/reset", JSON.stringify({ seed: 1 }));
      assert.equal(ok.status, 200);
    });

    test(`WS: ${depth}-deep JSON is a VALIDATION_ERROR message; the session goes on`, async () => {
      const replies = (await wsExchange(server.url, [
        `{"type":"step","data":${deep(depth)}}`,
        JSON.stringify({ type: "reset", data: { seed: 3 } }),
      ])) as { type: string; data: Record<string, unknown> }[];
      assert.equal(replies[0].type, "error");
      assert.equal(replies[0].data.code, "VALIDATION_ERROR");
      assert.equal(replies[0].data.limit, "max_depth");
      assert.equal(replies[1].type, "observation");
    });
  }

  test("nesting within the limit is served as before", async () => {
    const args = { case_id: "C-1", nested: JSON.parse(deep(20)) };
    const reset = await post(server.url, "/reset", JSON.stringify({ seed: 1, episode_id: "ep-nest" }));
    assert.equal(reset.status, 200);
    const r = await post(
      server.url,
      "/step",
      JSON.stringify({ episode_id: "ep-nest", action: { tool: "get_case", args } }),
    );
    assert.equal(r.status, 200, r.text.slice(0, 300));
  });

  test("a string past the length limit is refused (HTTP 422, WS error); the limits are configurable", async () => {
    const huge = "x".repeat(900_000);
    const r = await post(server.url, "/reset", JSON.stringify({ seed: 1, family: huge }));
    assert.equal(r.status, 422);
    assert.equal(r.json.limit, "max_string_length");
    assert.ok(r.text.length < 2000, "the reply does not echo the string");
    const small = await post(permissive.url, "/reset", JSON.stringify({ family: "y".repeat(1001) }), {});
    assert.equal(small.status, 422);
    assert.equal(small.json.limit, "max_string_length");
    const nine = await post(permissive.url, "/reset", deep(9));
    assert.equal(nine.json.limit, "max_depth");
    const [reply] = (await wsExchange(server.url, [
      JSON.stringify({ type: "step", data: { tool: "get_case", args: { case_id: huge } } }),
    ])) as { type: string; data: Record<string, unknown> }[];
    assert.equal(reply.type, "error");
    assert.equal(reply.data.limit, "max_string_length");
  });

  test("a long input inside the limits is quoted cut short in the world's messages", async () => {
    const long = "C".repeat(60_000);
    await post(server.url, "/reset", JSON.stringify({ seed: 1, episode_id: "ep-quote" }));
    const r = await post(
      server.url,
      "/step",
      JSON.stringify({ episode_id: "ep-quote", action: { tool: "get_case", args: { case_id: long } } }),
    );
    assert.equal(r.status, 200);
    const result = (
      r.json.observation as { result: { ok: boolean; error: { code: string; message: string } } }
    ).result;
    assert.equal(result.error.code, "not_found");
    assert.ok(result.error.message.length < 200, `message of ${result.error.message.length} characters`);
    assert.match(result.error.message, /60000 characters/);
    const unknown = await post(
      server.url,
      "/step",
      JSON.stringify({ episode_id: "E".repeat(250), action: {} }),
    );
    assert.ok(unknown.text.length < 1000);
  });

  test("an own __proto__ key in args and a 10,000-character tool name are invalid_argument observations (HTTP and WS)", async () => {
    const reset = await post(server.url, "/reset", JSON.stringify({ seed: 1, episode_id: "ep-proto" }));
    const caseId = String((reset.json.observation as { context: Record<string, unknown> }).context.case_id);
    // written as text: JSON.stringify of an object literal would not carry an own __proto__ key
    const protoArgs = `{"case_id":${JSON.stringify(caseId)},"__proto__":{"polluted":true}}`;
    const longTool = "x".repeat(10_000);
    const bodies = [
      `{"episode_id":"ep-proto","action":{"tool":"get_case","args":${protoArgs}}}`,
      `{"episode_id":"ep-proto","action":{"type":"call_tool","tool_name":"get_case","arguments":${protoArgs}}}`,
      JSON.stringify({ episode_id: "ep-proto", action: { tool: longTool, args: {} } }),
    ];
    const check = (obs: unknown, what: string) => {
      const o = obs as { kind: string; result: { ok: boolean; error: { code: string; message: string } } };
      assert.equal(o.kind, "tool_result", what);
      assert.equal(o.result.ok, false, what);
      assert.equal(o.result.error.code, "invalid_argument", `${what}: ${JSON.stringify(o.result)}`);
      assert.ok(o.result.error.message.length < 500, `${what}: the message quotes the input cut short`);
    };
    for (const [i, body] of bodies.entries()) {
      const r = await post(server.url, "/step", body);
      assert.equal(r.status, 200, r.text.slice(0, 300));
      check(r.json.observation, `HTTP body ${i}`);
      assert.equal(r.json.done, false);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined, "no prototype was polluted");
    const replies = (await wsExchange(server.url, [
      JSON.stringify({ type: "reset", data: { seed: 1 } }),
      `{"type":"step","data":{"tool":"get_case","args":${protoArgs}}}`,
      JSON.stringify({ type: "step", data: { tool: longTool, args: {} } }),
    ])) as { type: string; data: { observation: unknown } }[];
    assert.deepEqual(
      replies.map((r) => r.type),
      ["observation", "observation", "observation"],
    );
    check(replies[1].data.observation, "WS __proto__");
    check(replies[2].data.observation, "WS long tool name");
  });

  test("a 900 KB case_id that reaches the world is quoted cut short in its not_found message", async () => {
    const roomy = await startServer({
      target: worldTarget(deviceSupport),
      port: 0,
      heartbeatMs: 0,
      maxStringLength: 1 << 20,
      maxBodyBytes: 2 << 20,
    });
    try {
      const huge = "C".repeat(900_000);
      await post(roomy.url, "/reset", JSON.stringify({ seed: 1, episode_id: "ep-900k" }));
      const r = await post(
        roomy.url,
        "/step",
        JSON.stringify({ episode_id: "ep-900k", action: { tool: "get_case", args: { case_id: huge } } }),
      );
      assert.equal(r.status, 200);
      assert.ok(r.text.length < 2000, `a reply of ${r.text.length} characters`);
      const result = (r.json.observation as { result: { error: { code: string; message: string } } }).result;
      assert.equal(result.error.code, "not_found");
      assert.match(result.error.message, /900000 characters/);
    } finally {
      await roomy.close();
    }
  });

  test("a cross-site POST (text/plain, Origin: evil) is refused with 403 FORBIDDEN_ORIGIN", async () => {
    for (const path of ["/reset", "/step", "/close"]) {
      const r = await post(server.url, path, "{}", {
        "content-type": "text/plain",
        origin: "https://evil.example",
      });
      assert.equal(r.status, 403, path);
      assert.equal(r.json.code, "FORBIDDEN_ORIGIN");
    }
    const before = server.sessions.counts().http;
    await post(server.url, "/reset", "{}", { origin: "https://evil.example" });
    assert.equal(server.sessions.counts().http, before, "no episode was created");
    // no Origin (a program, not a web page): served
    assert.equal((await post(server.url, "/reset", "{}")).status, 200);
  });

  test("a WebSocket upgrade from another origin is refused; an allowed origin is served", async () => {
    await assert.rejects(
      wsExchange(server.url, ["{}"], { origin: "https://evil.example" }),
      (err: unknown) => {
        assert.equal((err as { status: number }).status, 403);
        return true;
      },
    );
    await assert.rejects(wsExchange(permissive.url, ["{}"], { origin: "https://evil.example" }));
    const [reply] = (await wsExchange(
      permissive.url,
      [JSON.stringify({ type: "reset", data: { seed: 2 } })],
      {
        origin: "https://app.example",
      },
    )) as { type: string }[];
    assert.equal(reply.type, "observation");
    const allowed = await post(permissive.url, "/reset", "{}", { origin: "https://APP.example" });
    assert.equal(allowed.status, 200);
  });
});
