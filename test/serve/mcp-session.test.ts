/**
 * `/mcp` for standard MCP clients (issue 26): the official SDK client (Streamable HTTP transport)
 * connects with no OpenEnv knowledge: `initialize` opens the session (`Mcp-Session-Id`) on a task the
 * server chose and answers its instruction; `tools/list` has a `reset` tool beside the world's; the
 * reset tool picks a task; world tools are called without `params.session_id`; the episode plays to
 * its verdict; closing the transport ends the session. OpenEnv's JSON-RPC clients open no session.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Observation, TaskObservation } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { startServer, worldTarget } from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

type Result = CallToolResult & { structuredContent: JsonObject; _meta: JsonObject };

test("the official MCP SDK client plays a full episode on /mcp, session from Mcp-Session-Id", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0, heartbeatMs: 0 });
  const client = new Client({ name: "standard", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
  try {
    await client.connect(transport);
    const sid = transport.sessionId;
    assert.ok(sid, "initialize answered an Mcp-Session-Id");
    assert.ok(server.sessions.getHttp(sid), "the session is an episode of the server");
    assert.ok((client.getInstructions() ?? "").length > 0, "the chosen task's instruction");

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.deepEqual(names, [...deviceSupport.create().spec.tools.map((t) => t.name), "reset"]);

    const reset = (await client.callTool({
      name: "reset",
      arguments: { family: "denied", difficulty: 1, seed: 4 },
    })) as Result;
    assert.equal(reset.isError, false);
    const first = reset.structuredContent.observation as unknown as TaskObservation;
    const caseId = String(first.context.case_id);
    const text = (reset.content as { type: string; text: string }[])[0].text;
    assert.ok(text.startsWith(first.instruction), "the instruction as text");
    assert.match(text, new RegExp(caseId));
    assert.equal(reset._meta.episode_id, sid, "the session's episode");
    assert.equal((reset.structuredContent.metadata as JsonObject).task_id, "device-support@1/denied/d1/s4");

    // the known-good policy, on observations rebuilt from the tool results
    const agent = await deviceSupport.policies.cautious.start({
      episodeId: "mcp",
      world: deviceSupport.id,
      instruction: first.instruction,
      tools: first.tools,
      samplingSeed: 0,
    });
    let observation: Observation = first;
    let last: Result | undefined;
    for (let i = 0; i < 50 && last?._meta.done !== true; i++) {
      const action = await agent.act(observation);
      last = (await client.callTool({ name: action.tool, arguments: action.args })) as Result;
      const { outcome: _o, verdict: _v, ...result } = last.structuredContent;
      observation = {
        kind: "tool_result",
        tool: action.tool,
        callId: `c${i}`,
        result,
        now: last._meta.now,
      } as unknown as Observation;
    }
    assert.ok(last, "the episode took steps");
    assert.equal(last._meta.done, true);
    assert.equal(last.structuredContent.outcome, "passed");
    assert.equal((last.structuredContent.verdict as JsonObject).passed, true);
    const state = (await (await fetch(`${server.url}/state?episode_id=${sid}`)).json()) as JsonObject;
    assert.equal(state.done, true);

    // a reset with an unknown argument is refused; the reset tool restarts the session's episode
    await assert.rejects(client.callTool({ name: "reset", arguments: { params: {} } }));
    const again = (await client.callTool({ name: "reset", arguments: { seed: 9 } })) as Result;
    assert.equal((again.structuredContent.metadata as JsonObject).step_count, 0);

    await transport.terminateSession();
    assert.equal(server.sessions.getHttp(sid), undefined, "DELETE ended the session");
  } finally {
    await client.close();
    await server.close();
  }
});

test("a JSON-RPC initialize of an OpenEnv client (no event stream accepted) opens no session", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0, heartbeatMs: 0 });
  try {
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("mcp-session-id"), null);
    assert.equal(server.sessions.size, 0);
  } finally {
    await server.close();
  }
});
