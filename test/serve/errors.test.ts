/**
 * The serve client's errors: each is a catalogued `remote_*` code, and the wire status decides its
 * fault (a 4xx is the caller's: config or agent; a 5xx or a network failure is infrastructure).
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { Environment } from "../../src/core/contracts.ts";
import { ERROR_CATALOGUE, type Fault, WIRE_ERRORS } from "../../src/core/error-catalogue.ts";
import { ProvingError } from "../../src/core/errors.ts";
import { remoteErrorCode } from "../../src/serve/client.ts";
import {
  type RunningServer,
  ServeClient,
  ServeClientError,
  type ServeTarget,
  startServer,
  WsEpisodeClient,
  worldTarget,
} from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

const TOKEN = "s3cret";

/** Asserts `work` rejects with a ServeClientError of this code and fault (and wire code, status). */
async function rejectsWith(
  work: Promise<unknown>,
  expected: { code: string; fault: Fault; wireCode?: string; status?: number },
): Promise<ServeClientError> {
  let caught: ServeClientError | undefined;
  await assert.rejects(work, (err: unknown) => {
    assert.ok(err instanceof ServeClientError, `expected a ServeClientError, got ${String(err)}`);
    assert.ok(err instanceof ProvingError);
    assert.equal(err.code, expected.code);
    assert.equal(err.fault, expected.fault);
    assert.equal(err.fault, ERROR_CATALOGUE[err.code].fault, "the fault is the catalogue's");
    if ("wireCode" in expected) assert.equal(err.wireCode, expected.wireCode);
    if ("status" in expected) assert.equal(err.status, expected.status);
    caught = err;
    return true;
  });
  return caught!;
}

/** device-support, except that every step throws (the served world fails). */
const crashingTarget: ServeTarget = {
  ...worldTarget(deviceSupport),
  create(): Environment {
    const env = deviceSupport.create();
    env.step = async () => {
      throw new Error("the world fell over");
    };
    return env;
  },
};

describe("serve client errors: a `proving serve` server", () => {
  let server: RunningServer;
  let client: ServeClient;
  before(async () => {
    server = await startServer({ target: crashingTarget, port: 0, token: TOKEN, maxBodyBytes: 4096 });
    client = new ServeClient(server.url, { token: TOKEN });
  });
  after(() => server.close());

  test("a 4xx reply is the caller's fault: config", async () => {
    await rejectsWith(new ServeClient(server.url, { token: "wrong" }).metadata(), {
      code: "remote_unauthorized",
      fault: "config",
      wireCode: "UNAUTHORIZED",
      status: 401,
    });
    await rejectsWith(client.reset({ family: "no-such-family" }), {
      code: "remote_validation_error",
      fault: "config",
      wireCode: "VALIDATION_ERROR",
      status: 422,
    });
    await rejectsWith(client.step("never-reset", { tool: "get_case", args: {} }), {
      code: "remote_session_error",
      fault: "config",
      wireCode: "SESSION_ERROR",
      status: 404,
    });
    await rejectsWith(new ServeClient(`${server.url}/no/such/prefix`, { token: TOKEN }).metadata(), {
      code: "remote_not_found",
      fault: "config",
      wireCode: "NOT_FOUND",
      status: 404,
    });
  });

  test("an action over the body limit is the agent's fault (413)", async () => {
    const first = await client.reset({ seed: 1, family: "denied" });
    const id = String(first.metadata.episode_id);
    await rejectsWith(client.step(id, { tool: "get_case", args: { case_id: "x".repeat(8192) } }), {
      code: "remote_payload_too_large",
      fault: "agent",
      wireCode: "PAYLOAD_TOO_LARGE",
      status: 413,
    });
    await client.close(id);
  });

  test("a world that fails on the server is a 5xx: infrastructure", async () => {
    const first = await client.reset({ seed: 2, family: "denied" });
    const id = String(first.metadata.episode_id);
    const err = await rejectsWith(client.step(id, { tool: "get_case", args: { case_id: "C-1" } }), {
      code: "remote_execution_error",
      fault: "infrastructure",
      wireCode: "EXECUTION_ERROR",
      status: 500,
    });
    assert.match(err.message, /the world fell over/);
    await client.close(id).catch(() => undefined);
  });

  test("over WebSocket, a reply's fault is the catalogued status of its wire code", async () => {
    await rejectsWith(WsEpisodeClient.connect(server.url, { token: "nope" }), {
      code: "remote_unauthorized",
      fault: "config",
      wireCode: "UNAUTHORIZED",
      status: 401,
    });
    const ws = await WsEpisodeClient.connect(server.url, { token: TOKEN });
    try {
      await rejectsWith(ws.reset({ family: "no-such-family" }), {
        code: "remote_validation_error",
        fault: "config",
        wireCode: "VALIDATION_ERROR",
        status: undefined,
      });
      await rejectsWith(ws.step({ tool: "get_case", args: {} }), {
        code: "remote_session_error",
        fault: "config",
        wireCode: "SESSION_ERROR",
      });
      await ws.reset({ seed: 3, family: "denied" });
      await rejectsWith(ws.step({ tool: "get_case", args: { case_id: "C-1" } }), {
        code: "remote_execution_error",
        fault: "infrastructure",
        wireCode: "EXECUTION_ERROR",
      });
    } finally {
      await ws.close();
    }
  });

  test("a WebSocket frame over the limit (close 1009) is the agent's fault", async () => {
    const ws = await WsEpisodeClient.connect(server.url, { token: TOKEN });
    await ws.reset({ seed: 4, family: "denied" });
    const err = await rejectsWith(ws.step({ tool: "get_case", args: { case_id: "x".repeat(8192) } }), {
      code: "remote_payload_too_large",
      fault: "agent",
      wireCode: undefined,
    });
    assert.equal(err.data.close_code, 1009);
    await ws.close();
  });
});

describe("serve client errors: capacity and the network are infrastructure", () => {
  test("a server at capacity (503) over HTTP and over WebSocket", async () => {
    const server = await startServer({ target: worldTarget(deviceSupport), port: 0, maxSessions: 1 });
    try {
      const holder = await WsEpisodeClient.connect(server.url);
      await holder.reset({ seed: 1 });
      await rejectsWith(new ServeClient(server.url).reset({ seed: 1 }), {
        code: "remote_capacity_reached",
        fault: "infrastructure",
        wireCode: "CAPACITY_REACHED",
        status: 503,
      });
      const refused = WsEpisodeClient.connect(server.url).then((ws) => ws.reset({ seed: 1 }));
      await rejectsWith(refused, {
        code: "remote_capacity_reached",
        fault: "infrastructure",
        wireCode: "CAPACITY_REACHED",
      });
      await holder.close();
    } finally {
      await server.close();
    }
  });

  test("no server listening: unreachable, over HTTP and over WebSocket", async () => {
    const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
    const url = server.url;
    await server.close();
    await rejectsWith(new ServeClient(url).health(), {
      code: "remote_unreachable",
      fault: "infrastructure",
      wireCode: undefined,
    });
    await rejectsWith(WsEpisodeClient.connect(url), { code: "remote_unreachable", fault: "infrastructure" });
  });
});

describe("serve client errors: a foreign server (the status decides, whatever the body says)", () => {
  let foreign: Server;
  let url: string;
  before(async () => {
    foreign = createServer((req, res) => {
      const reply = (status: number, body: string, type = "application/json") => {
        res.writeHead(status, { "content-type": type });
        res.end(body);
      };
      if (req.url === "/health") return reply(200, "not json at all", "text/plain");
      if (req.url === "/metadata")
        return reply(418, JSON.stringify({ code: "I_AM_A_TEAPOT", message: "no" }));
      if (req.url === "/schema") return reply(502, "<html>bad gateway</html>", "text/html");
      if (req.url === "/reset")
        return reply(400, JSON.stringify({ code: "EXECUTION_ERROR", message: "odd" }));
      return reply(500, JSON.stringify({ code: "VALIDATION_ERROR", message: "odder" }));
    });
    await new Promise<void>((resolve) => foreign.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => foreign.close(() => resolve())));

  test("a 4xx with an unknown code is the caller's: remote_rejected", async () => {
    await rejectsWith(new ServeClient(url).metadata(), {
      code: "remote_rejected",
      fault: "config",
      wireCode: "I_AM_A_TEAPOT",
      status: 418,
    });
  });

  test("a 5xx without a body is infrastructure: remote_server_error", async () => {
    await rejectsWith(new ServeClient(url).schema(), {
      code: "remote_server_error",
      fault: "infrastructure",
      wireCode: undefined,
      status: 502,
    });
  });

  test("a known code answered with a status of the other class follows the status", async () => {
    await rejectsWith(new ServeClient(url).reset({ seed: 1 }), {
      code: "remote_rejected",
      fault: "config",
      wireCode: "EXECUTION_ERROR",
      status: 400,
    });
    await rejectsWith(new ServeClient(url).step("e", { tool: "t", args: {} }), {
      code: "remote_server_error",
      fault: "infrastructure",
      wireCode: "VALIDATION_ERROR",
      status: 500,
    });
  });

  test("a 200 that is not JSON is an unreadable reply: infrastructure", async () => {
    await rejectsWith(new ServeClient(url).health(), {
      code: "remote_bad_response",
      fault: "infrastructure",
    });
  });
});

describe("remoteErrorCode", () => {
  test("every wire code maps to its catalogued remote code at its own status and over WebSocket", () => {
    for (const [wire, entry] of Object.entries(WIRE_ERRORS)) {
      assert.equal(remoteErrorCode(wire, entry.status), entry.remote, wire);
      assert.equal(remoteErrorCode(wire, undefined), entry.remote, `${wire} over WebSocket`);
    }
  });

  test("unknown codes: by status class; with no status at all, infrastructure", () => {
    assert.equal(remoteErrorCode("SOMETHING", 409), "remote_rejected");
    assert.equal(remoteErrorCode(undefined, 404), "remote_rejected");
    assert.equal(remoteErrorCode("SOMETHING", 503), "remote_server_error");
    assert.equal(remoteErrorCode("SOMETHING", undefined), "remote_server_error");
    assert.equal(remoteErrorCode(undefined, 302), "remote_server_error");
  });
});
