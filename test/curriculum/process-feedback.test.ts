/** evaluateTransition's world-agnostic step signals and the penalty the samplers get. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Observation } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { ProcessTracker, processPenalty } from "../../src/curriculum/index.ts";

const task: Observation = { kind: "task", instruction: "", context: {}, tools: [] };
const res = (tool: string, result: Record<string, unknown>): Observation =>
  ({ kind: "tool_result", tool, callId: "c", result, now: 0 }) as Observation;

test("tool errors, repeats, wasted waits, blocked calls, writes before a read, steps after the outcome", () => {
  const t = new ProcessTracker();
  const step = (tool: string, args: JsonObject, result: Record<string, unknown>) =>
    t.evaluateTransition(task, { tool, args, callId: "c" }, 0, res(tool, result));
  assert.equal(step("create_replacement", { k: 1 }, { ok: true }).writeWithoutRead, true);
  assert.equal(step("get_case", { id: 1 }, { ok: false, error: { code: "not_found" } }).toolError, true);
  assert.equal(step("get_case", { id: 1 }, { ok: true }).repeated, true);
  assert.equal(step("wait", { seconds: 5 }, { ok: true }).wastedWait, false);
  assert.equal(step("wait", { seconds: 9 }, { ok: true }).wastedWait, true);
  assert.equal(step("create_replacement", { k: 2 }, { ok: false, error: { code: "blocked" } }).blocked, true);
  step("close_case", { resolution: "x" }, { ok: true });
  const s = t.summary();
  assert.deepEqual(s, {
    steps: 7,
    toolErrors: 2,
    repeated: 1,
    wastedWaits: 1,
    blocked: 1,
    writesWithoutRead: 1,
    // after the last successful write (step 0): steps 1-5; the closing call is not counted
    afterOutcome: 5,
  });
  assert.equal(processPenalty(s), (2 + 1 + 1 + 1 + 1 + 5) / (6 * 7));
  assert.equal(processPenalty({ ...s, steps: 0 }), 0);
});
