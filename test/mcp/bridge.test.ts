import assert from "node:assert/strict";
import { test } from "node:test";
import type { Observation, TrialSpec } from "../../src/core/contracts.ts";
import { McpBridge } from "../../src/mcp/index.ts";
import { runTrial } from "../../src/runner/trial.ts";
import { deviceSupport } from "../../src/worlds/index.ts";

const spec = (id: string, maxSteps = 200): TrialSpec => ({
  schemaVersion: 1,
  id,
  experimentId: "e",
  index: 0,
  world: deviceSupport.id,
  family: "needs-approval",
  difficulty: 2,
  seed: 4,
  repeat: 0,
  agent: { id: "mcp", kind: "mcp", spec: "mcp:test" },
  budget: { maxSteps, wallTimeoutMs: 60_000 },
});

async function drive(bridge: McpBridge, withOnStep: boolean) {
  const record = runTrial(spec(withOnStep ? "t-on" : "t-off"), {
    world: deviceSupport,
    agent: bridge.agent,
    ...(withOnStep ? { onStep: bridge.onStep } : {}),
  });
  const episode = await bridge.started;
  const policy = await deviceSupport.policies.cautious.start(episode);
  let obs: Observation = {
    kind: "task",
    instruction: episode.instruction,
    context: {},
    tools: episode.tools,
  };
  const first = deviceSupport.generateTask({ family: "needs-approval", difficulty: 2, seed: 4 });
  obs = { ...obs, context: { case_id: String((first.params as { case_id: string }).case_id) } };
  for (let i = 0; i < 300; i++) {
    const action = await policy.act(obs);
    const r = await bridge.callTool(action.tool, action.args);
    if (r.end) return { last: r, record: await record };
    obs = { kind: "tool_result", tool: action.tool, callId: String(i), result: r.result, now: 0 };
  }
  throw new Error("no end");
}

test("the bridge turns tool calls into a runner trial (with onStep: the terminal call carries the world's result and the verdict)", async () => {
  const { last, record } = await drive(new McpBridge(), true);
  assert.equal(last.result.ok, true);
  assert.equal(last.end?.outcome, "passed");
  assert.deepEqual(last.end?.verdict, record.verdict);
  assert.equal(record.outcome, "passed");
});

test("without onStep (a runner-owned trial), calls are answered from the next act(); the end still carries the verdict", async () => {
  const { last, record } = await drive(new McpBridge(), false);
  assert.equal(record.outcome, "passed");
  assert.equal(last.end?.outcome, "passed");
  assert.deepEqual(last.end?.verdict, record.verdict);
});

test("calls after the end never reach the world; a vanished client ends an open trial as agent_error", async () => {
  const bridge = new McpBridge();
  const record = runTrial(spec("t-gone"), {
    world: deviceSupport,
    agent: bridge.agent,
    onStep: bridge.onStep,
  });
  await bridge.started;
  const r = await bridge.callTool("get_case", { case_id: "C-00000" });
  assert.equal(r.end, undefined);
  bridge.disconnect("client left");
  const rec = await record;
  assert.equal(rec.outcome, "agent_error");
  assert.equal(rec.steps.length, 1);
  const late = await bridge.callTool("get_case", { case_id: "C-00000" });
  assert.equal(late.notRun, true);
  assert.equal(late.result.ok, false);
  assert.equal(rec.steps.length, 1);
});
