/**
 * `/mcp` as MCP's streamable HTTP has it, beside OpenEnv's JSON-RPC: a notification is accepted
 * (202, no body), GET opens no stream (405), `Mcp-Session-Id` names the episode of a `tools/call`,
 * and DELETE with it ends the episode.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type RunningServer, startServer, worldTarget } from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

let server: RunningServer;
before(async () => {
  server = await startServer({ target: worldTarget(deviceSupport), port: 0, heartbeatMs: 0 });
});
after(() => server.close());

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

test("notifications are accepted, GET is 405, Mcp-Session-Id names the episode, DELETE ends it", async () => {
  const note = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(note.status, 202);
  assert.equal(await note.text(), "");
  const get = await fetch(`${server.url}/mcp`);
  assert.equal(get.status, 405);
  assert.equal(((await get.json()) as { error: { code: number } }).error.code, -32000);
  assert.equal((await fetch(`${server.url}/mcp`, { method: "DELETE" })).status, 405);

  const reset = await fetch(`${server.url}/reset`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ family: "denied", difficulty: 1, seed: 2 }),
  });
  const { observation, metadata } = (await reset.json()) as {
    observation: { context: { case_id: string } };
    metadata: { episode_id: string };
  };
  const sid = { "mcp-session-id": metadata.episode_id };
  const call = await post(
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "get_case", arguments: { case_id: observation.context.case_id } },
    },
    sid,
  );
  const reply = (await call.json()) as { result: { isError: boolean; _meta: { episode_id: string } } };
  assert.equal(reply.result.isError, false);
  assert.equal(reply.result._meta.episode_id, metadata.episode_id);

  const closed = await fetch(`${server.url}/mcp`, { method: "DELETE", headers: sid });
  assert.equal(closed.status, 200);
  assert.equal(server.sessions.getHttp(metadata.episode_id), undefined);
  const gone = await fetch(`${server.url}/mcp`, { method: "DELETE", headers: sid });
  assert.equal(gone.status, 404);
});
