/**
 * One world, two MCP faces: `proving serve`'s `/mcp` and `proving mcp` (streamable HTTP), both on
 * 127.0.0.1, played by the official SDK client. The tools lists are identical, and every kind of
 * answer (a result, a tool error, an unknown tool, the terminal call, a call after the end) has the
 * same shape on both, down to the values: only the episode ids differ.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "../../src/core/json.ts";
import { type McpHttpServer, type McpTrial, serveMcpHttp, startMcpTrial } from "../../src/mcp/index.ts";
import { type RunningServer, startServer, worldTarget } from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

const TASK = { family: "denied", difficulty: 1, seed: 4 };

/** A result without the one value the faces cannot share (their episode ids), and its meta's keys. */
function comparable(result: CallToolResult): JsonObject {
  const { _meta, ...rest } = result as unknown as JsonObject & { _meta: JsonObject };
  assert.equal(typeof _meta.episode_id, "string", "the episode id is told");
  const { episode_id: _id, ...meta } = _meta;
  return { ...rest, _meta: meta };
}

describe("the two MCP faces answer alike", () => {
  let serve: RunningServer;
  let trial: McpTrial;
  let mcp: McpHttpServer;
  const served = new Client({ name: "served", version: "1" });
  const trialClient = new Client({ name: "trial", version: "1" });
  let caseId = "";

  before(async () => {
    serve = await startServer({ target: worldTarget(deviceSupport), port: 0, heartbeatMs: 0 });
    const reset = await fetch(`${serve.url}/reset`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(TASK),
    });
    const envelope = (await reset.json()) as {
      observation: { context: { case_id: string } };
      metadata: { episode_id: string };
    };
    caseId = envelope.observation.context.case_id;
    // the episode is the MCP session: the client sends its id as `Mcp-Session-Id`
    await served.connect(
      new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), {
        sessionId: envelope.metadata.episode_id,
      }),
    );
    trial = startMcpTrial({ target: worldTarget(deviceSupport), ...TASK, transport: "http" });
    mcp = await serveMcpHttp(trial);
    await trialClient.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    assert.match(trialClient.getInstructions() ?? "", new RegExp(caseId));
  });

  after(async () => {
    await served.close();
    await trialClient.close();
    await mcp.close();
    await serve.close();
  });

  const both = async (name: string, args: JsonObject) => {
    const a = (await served.callTool({ name, arguments: args })) as CallToolResult;
    const b = (await trialClient.callTool({ name, arguments: args })) as CallToolResult;
    assert.deepEqual(comparable(a), comparable(b), `${name}: the same answer on both faces`);
    return a as CallToolResult & { structuredContent: JsonObject; _meta: JsonObject };
  };

  test("tools/list: identical, each tool's input schema as the world gives it", async () => {
    const listed = await served.listTools();
    // the served face adds its reset tool (a session's new episode); the world's tools are the overlap
    assert.equal(listed.tools.at(-1)?.name, "reset");
    const a = { ...listed, tools: listed.tools.filter((t) => t.name !== "reset") };
    const b = await trialClient.listTools();
    assert.deepEqual(a, b);
    const spec = deviceSupport.create().spec;
    assert.deepEqual(
      a.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
      spec.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema })),
    );
  });

  test("tools/call: results, tool errors, unknown tools, the end and after it", async () => {
    const got = await both("get_case", { case_id: caseId });
    assert.equal(got.isError, false);
    assert.equal(got.structuredContent.ok, true);
    assert.deepEqual(got.content, [{ type: "text", text: JSON.stringify(got.structuredContent) }]);
    assert.deepEqual((got as unknown as JsonObject).data, got.structuredContent);
    assert.deepEqual(Object.keys(got._meta), ["done", "reward", "episode_id", "step_count", "now"]);
    assert.equal(got._meta.done, false);
    assert.equal(got._meta.step_count, 1);

    const bad = await both("get_case", { case_id: 42 });
    assert.equal(bad.isError, true, "a tool error is an error result");
    assert.equal((bad.structuredContent.error as JsonObject).code, "invalid_argument");
    assert.equal(bad._meta.step_count, 2, "and a step");

    for (const client of [served, trialClient]) {
      await assert.rejects(
        client.callTool({ name: "rm_rf", arguments: {} }),
        (err: unknown) => err instanceof McpError && err.code === ErrorCode.InvalidParams,
        "a tool that is not served is a JSON-RPC error",
      );
    }

    await both("get_approval", { case_id: caseId });
    const end = await both("close_case", { case_id: caseId, resolution: "denied" });
    assert.equal(end.isError, false);
    assert.equal(end.structuredContent.outcome, "passed");
    assert.equal((end.structuredContent.verdict as JsonObject).passed, true);
    assert.equal(end._meta.done, true);
    assert.equal(end._meta.outcome, "passed");
    assert.deepEqual(end._meta.verdict, end.structuredContent.verdict);

    const late = await both("get_case", { case_id: caseId });
    assert.equal(late.isError, true);
    assert.equal((late.structuredContent.error as JsonObject).code, "trial_ended");
    assert.equal(late.structuredContent.outcome, "passed");
    assert.equal(late._meta.done, true);
    assert.equal(late._meta.step_count, 4, "a call after the end takes no step");
    assert.equal((await trial.record).outcome, "passed");
  });
});
