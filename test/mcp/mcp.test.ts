import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Observation, ToolResult } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { serveMcpHttp, startMcpTrial } from "../../src/mcp/index.ts";
import { worldTarget } from "../../src/serve/index.ts";
import { openStore } from "../../src/store/open-store.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

interface Parsed extends JsonObject {
  ok: boolean;
}

async function call(client: Client, name: string, args: JsonObject) {
  const res = await client.callTool({ name, arguments: args });
  const content = res.content as { type: string; text: string }[];
  assert.equal(content.length, 1, "one content item");
  assert.equal(content[0].type, "text");
  return { isError: res.isError === true, payload: JSON.parse(content[0].text) as Parsed };
}

/** Plays a device-support scripted policy through an MCP client; returns the terminal payload. */
async function playOverMcp(client: Client, policy: string, caseId: string, instruction: string) {
  const listed = await client.listTools();
  const session = await deviceSupport.policies[policy].start({
    episodeId: "mcp",
    samplingSeed: 0,
    world: deviceSupport.id,
    instruction,
    tools: listed.tools.map((t) => ({
      name: t.name,
      description: t.description ?? "",
      input_schema: t.inputSchema as JsonObject,
    })),
  });
  let obs: Observation = {
    kind: "task",
    instruction,
    context: { case_id: caseId },
    tools: [],
  };
  for (let i = 0; i < 300; i++) {
    const action = await session.act(obs);
    const { isError, payload } = await call(client, action.tool, action.args);
    const { verdict, outcome, ...result } = payload;
    assert.equal(isError, !result.ok);
    if (verdict !== undefined || outcome !== undefined) return { payload, steps: i + 1 };
    obs = { kind: "tool_result", tool: action.tool, callId: String(i), result: result as ToolResult, now: 0 };
  }
  throw new Error("no terminal result within 300 calls");
}

const caseIdIn = (instruction: string) => {
  const m = /\bC-\d+\b/.exec(instruction);
  assert.ok(m, `instruction names a case id: ${instruction}`);
  return m[0];
};

describe("MCP server", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "proving-mcp-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("over stdio (proving mcp): the official SDK client plays a full episode; the trial is verified and recorded", async () => {
    const store = path.join(dir, "stdio.db");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["bin/proving.mjs", "mcp", "--task", "device-support@1/lost-reply/d2/s3", "--store", store],
      cwd: ROOT,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    let trialId: string | undefined;
    try {
      const instruction = client.getInstructions() ?? "";
      const caseId = caseIdIn(instruction);
      const task = deviceSupport.generateTask({ family: "lost-reply", difficulty: 2, seed: 3 });
      assert.equal(instruction, task.instruction);
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(
        tools,
        deviceSupport
          .create()
          .spec.tools.map((t) => t.name)
          .sort(),
      );
      // a bad call is an error result with the coded error (and a recorded step)
      const bad = await call(client, "get_case", { case_id: 42 });
      assert.equal(bad.isError, true);
      assert.equal((bad.payload.error as JsonObject).code, "invalid_argument");
      const { payload, steps } = await playOverMcp(client, "cautious", caseId, instruction);
      assert.equal(payload.ok, true);
      assert.equal(payload.outcome, "passed");
      assert.equal((payload.verdict as JsonObject).passed, true);
      assert.equal((payload.verdict as JsonObject).verifier, "verify.device-support@1");
      // after the end, tools answer with a coded error instead of reaching the world
      const late = await call(client, "get_case", { case_id: caseId });
      assert.equal(late.isError, true);
      assert.equal((late.payload.error as JsonObject).code, "trial_ended");
      trialId = `${steps + 1}`;
    } finally {
      await client.close();
    }
    assert.match(stderr, /trial t-[0-9a-f]+ passed/);
    const db = await openStore(store);
    try {
      const [experiment] = await db.listExperiments();
      assert.ok(experiment.id.startsWith("mcp-"));
      assert.equal(experiment.status, "completed");
      const [summary] = await db.listTrials(experiment.id);
      assert.equal(summary.outcome, "passed");
      const record = await db.getTrial(summary.trialId);
      assert.ok(record);
      assert.equal(record.spec.agent.kind, "mcp");
      assert.equal(record.spec.agent.spec, "mcp:stdio");
      assert.equal(record.task.id, "device-support@1/lost-reply/d2/s3");
      assert.equal(String(record.steps.length), trialId, "every call, the bad one included, is a step");
      assert.equal(record.steps[0].observation.kind, "tool_result");
      assert.equal(record.verdict?.passed, true);
    } finally {
      await db.close();
    }
  });

  test("over streamable HTTP: a failing agent's verdict comes from the verifier; the trial is recorded", async () => {
    const store = await openStore(":memory:");
    const trial = startMcpTrial({
      target: worldTarget(deviceSupport),
      family: "lost-reply",
      difficulty: 1,
      seed: 5,
      store,
      transport: "http",
      experimentId: "mcp-http-test",
    });
    const http = await serveMcpHttp(trial, { token: "tkn" });
    try {
      // no token, no session
      const stranger = new Client({ name: "stranger", version: "1" });
      await assert.rejects(stranger.connect(new StreamableHTTPClientTransport(new URL(http.url))));
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(http.url), {
          requestInit: { headers: { authorization: "Bearer tkn" } },
        }),
      );
      const instruction = client.getInstructions() ?? "";
      const { payload } = await playOverMcp(client, "claims-success", caseIdIn(instruction), instruction);
      assert.equal(payload.ok, true, "close_case itself succeeds");
      assert.equal((payload.verdict as JsonObject).passed, false);
      const record = await trial.record;
      assert.equal(record.outcome, payload.outcome);
      assert.notEqual(record.outcome, "passed");
      assert.deepEqual(record.verdict, payload.verdict);
      const stored = await store.getTrial(record.spec.id);
      assert.equal(stored?.outcome, record.outcome);
      assert.equal(stored?.spec.agent.spec, "mcp:http");
      await client.close();
    } finally {
      await http.close();
      await store.close();
    }
  });

  test("a client that leaves mid-trial ends it as agent_error, recorded", async () => {
    const store = await openStore(":memory:");
    const trial = startMcpTrial({
      target: worldTarget(deviceSupport),
      family: "needs-approval",
      store,
      transport: "http",
    });
    const http = await serveMcpHttp(trial);
    try {
      const transport = new StreamableHTTPClientTransport(new URL(http.url));
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(transport);
      const caseId = caseIdIn(client.getInstructions() ?? "");
      const first = await call(client, "get_case", { case_id: caseId });
      assert.equal(first.isError, false);
      await transport.terminateSession();
      await client.close();
      const record = await trial.record;
      assert.equal(record.outcome, "agent_error");
      assert.equal(record.steps.length, 1);
      assert.match(record.reason, /closed its session|disconnected|closed/);
      assert.equal((await store.getTrial(record.spec.id))?.outcome, "agent_error");
    } finally {
      await http.close();
      await store.close();
    }
  });

  test("proving mcp --http refuses a chunked body past the limit while it streams in, and a request that never ends (issue 27)", async () => {
    const store = await openStore(":memory:");
    const trial = startMcpTrial({
      target: worldTarget(deviceSupport),
      family: "needs-approval",
      store,
      transport: "http",
    });
    const http = await serveMcpHttp(trial, { maxBodyBytes: 64 * 1024 });
    try {
      const url = new URL(http.url);
      // a chunked body (no content-length) of 8 MiB: refused once it passes 64 KiB, not buffered whole
      const answer = await new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
        let sent = 0;
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          },
          (res) => {
            const answeredAt = sent;
            let body = "";
            res.on("data", (d) => (body += d));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body, sent: answeredAt }));
          },
        );
        req.on("error", reject);
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (sent < 8 << 20) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once("drain", pump);
          }
          req.end();
        };
        pump();
      });
      assert.equal(answer.status, 413, answer.body.slice(0, 200));
      assert.match(answer.body, /PAYLOAD_TOO_LARGE/);
      assert.ok(answer.sent < 8 << 20, `answered after ${answer.sent} bytes, before the body ended`);
      // a request whose body never ends is cut by the request timeout (set, not left at none)
      const { createServer } = await import("node:http");
      const { applyHttpTimeouts } = await import("../../src/serve/http-timeouts.ts");
      const probe = createServer();
      applyHttpTimeouts(probe);
      assert.ok(probe.requestTimeout > 0 && probe.headersTimeout > 0);
    } finally {
      await http.close();
      await store.close();
    }
  });
});
