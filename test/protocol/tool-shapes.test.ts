import assert from "node:assert/strict";
import { test } from "node:test";
import type { ToolDescriptor } from "../../src/core/contracts.ts";
import {
  afterEndResult,
  anthropicTool,
  functionTool,
  mcpCallResult,
  mcpTool,
  openAiTool,
} from "../../src/protocol/index.ts";

const tool: ToolDescriptor = {
  name: "get_case",
  description: "Reads a case.",
  input_schema: { type: "object", properties: { case_id: { type: "string" } }, required: ["case_id"] },
};

test("a tool in each shape keeps the world's schema as it is", () => {
  assert.deepEqual(mcpTool(tool), {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input_schema,
  });
  assert.equal(mcpTool(tool).inputSchema, tool.input_schema, "not copied");
  assert.deepEqual(mcpTool({ ...tool, input_schema: { properties: {} } }).inputSchema, {
    properties: {},
    type: "object",
  });
  assert.deepEqual(openAiTool(tool), {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
  });
  assert.deepEqual(anthropicTool(tool), tool);
  assert.deepEqual(functionTool(tool), {
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input_schema,
  });
});

test("a tools/call result: the world's answer, as text, structured and data; the end added once over", () => {
  const step = {
    result: { ok: true as const, n: 1 },
    done: false,
    reward: 0,
    episodeId: "e",
    stepCount: 1,
    now: 5,
  };
  assert.deepEqual(mcpCallResult(step), {
    content: [{ type: "text", text: '{"ok":true,"n":1}' }],
    structuredContent: { ok: true, n: 1 },
    data: { ok: true, n: 1 },
    isError: false,
    _meta: { done: false, reward: 0, episode_id: "e", step_count: 1, now: 5 },
  });
  const verdict = { passed: false, score: 0, checks: [], violations: [], verifier: "verify.x@1" };
  const late = mcpCallResult({
    ...step,
    result: afterEndResult({ outcome: "failed" }),
    done: true,
    reward: null,
    end: { outcome: "failed", verdict },
  });
  assert.equal(late.isError, true);
  assert.deepEqual(late.structuredContent, {
    ok: false,
    error: { code: "trial_ended", message: "the trial has ended (failed)", retryable: false },
    outcome: "failed",
    verdict,
  });
  assert.deepEqual(late._meta, {
    done: true,
    reward: null,
    episode_id: "e",
    step_count: 1,
    now: 5,
    outcome: "failed",
    verdict,
  });
});
