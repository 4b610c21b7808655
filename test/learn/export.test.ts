import assert from "node:assert/strict";
import { test } from "node:test";
import { policyModel } from "../../src/agents/llm/fake/index.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import type { PreferenceLine } from "../../src/learn/preference-format.ts";
import { type RolloutLine, rolloutTrajectory } from "../../src/learn/rollout-format.ts";
import { type SftLine, sftSteps } from "../../src/learn/sft-format.ts";
import { trajectoryHash } from "../../src/runner/trajectory-hash.ts";
import { envFor, runWithRecords, specFor, withEnv, withServer, world } from "../agents/llm-support.ts";
import { assertValid, exported as lines, validators } from "./export-support.ts";

/** Scripted policies: cautious passes lost-reply, new-key-retry duplicates the write (same tasks and seeds). */
const scripted = runWithRecords({
  families: ["lost-reply", "approved-replacement"],
  difficulties: [1],
  agents: ["cautious", "new-key-retry"],
  trials: 2,
});

/**
 * An LLM agent (fake provider) that follows `cautious` but sends a second, malformed tool call in its
 * first reply: a parallel tool call whose result is a tool error, and the lost reply's timeout later.
 */
const cautious = policyModel(world.policies.cautious);
const llmRecords = withServer(
  {
    model: async (request) => {
      const reply = await cautious(request);
      if (request.turn !== 0 || !reply.toolCalls) return reply;
      return {
        ...reply,
        toolCalls: [...reply.toolCalls, { id: "bad_1", name: "get_approval", arguments: { case_id: 42 } }],
      };
    },
  },
  (server) =>
    withEnv(envFor(server), () =>
      runWithRecords({
        families: ["lost-reply"],
        difficulties: [1],
        agents: [specFor("openai", server)],
        trials: 1,
      }),
    ),
);

test("SFT lines validate (OpenAI and TRL), with a parallel tool call and tool errors, and read back to the record's steps", async () => {
  const { records } = await llmRecords;
  const record = records[0];
  assert.ok(
    record.steps.some((s) => s.meta?.batchSize === 2),
    "the LLM agent made a parallel call",
  );
  for (const dialect of ["openai", "trl"] as const) {
    const { out } = await lines(records, { format: "sft", dialect, filter: { outcomes: [record.outcome] } });
    assert.equal(out.length, 1);
    const line = out[0] as SftLine;
    assertValid(dialect === "openai" ? "sft" : "trl", line);
    const assistants = line.messages.filter((m) => m.role === "assistant");
    assert.ok(
      assistants.some((m) => m.tool_calls.length === 2),
      "parallel calls share one assistant turn",
    );
    assert.equal(
      assistants.length,
      record.steps.length - 1,
      "one assistant turn per reply (two steps came from one reply)",
    );
    const errors = line.messages.filter((m) => m.role === "tool" && JSON.parse(m.content).ok === false);
    assert.ok(
      errors.length >= 2,
      "the malformed call's error and the lost reply's timeout are tool messages",
    );
    // the line ends on the last assistant turn: its calls have no tool message after them
    assert.equal(line.messages[line.messages.length - 1].role, "assistant");
    const steps = sftSteps(line);
    const lastTurn = Math.max(...steps.map((s) => s.turn));
    assert.deepEqual(
      steps.map((s) => ({ tool: s.tool, args: s.args, callId: s.callId, result: s.result })),
      record.steps.map((s, i) => ({
        tool: s.action.tool,
        args: s.action.args,
        callId: s.action.callId,
        result:
          steps[i].turn === lastTurn
            ? undefined
            : s.observation.kind === "tool_result"
              ? s.observation.result
              : s.observation,
      })),
    );
    assert.equal(line.tools.length, record.initial?.kind === "task" ? record.initial.tools.length : -1);
  }
  // a failed line of the OpenAI format is caught by the schema (arguments must be a JSON string)
  const { out } = await lines(records, {
    format: "sft",
    dialect: "trl",
    filter: { outcomes: [record.outcome] },
  });
  assert.equal(validators.sft(out[0]), false);
});

test("every SFT line ends on its last assistant turn, in both dialects (no trailing tool message)", async () => {
  const { records } = await scripted;
  for (const dialect of ["openai", "trl"] as const) {
    const { out } = await lines(records, {
      format: "sft",
      dialect,
      filter: { outcomes: ["passed", "failed"] },
    });
    assert.ok(out.length >= 4, `${dialect}: ${out.length} lines`);
    for (const raw of out) {
      const line = raw as SftLine;
      assertValid(dialect === "openai" ? "sft" : "trl", line);
      const last = line.messages[line.messages.length - 1];
      assert.equal(last.role, "assistant", `${dialect}: the line ends on ${last.role}`);
      // every other assistant turn is answered by its tool messages, in order
      const answered = new Set(line.messages.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : [])));
      for (const m of line.messages.slice(0, -1))
        if (m.role === "assistant") for (const c of m.tool_calls) assert.ok(answered.has(c.id));
    }
  }
});

test("rollout lines validate and round-trip to the trial's trajectory hash", async () => {
  const { records } = await scripted;
  const { out, result } = await lines(records, { format: "rollouts" });
  assert.equal(out.length, records.length);
  assert.equal(result.trials, records.length);
  for (const [i, raw] of out.entries()) {
    assertValid("rollouts", raw);
    const line = raw as RolloutLine;
    const r = records[i];
    assert.equal(line.trial_id, r.spec.id);
    assert.equal(line.outcome, r.outcome);
    const back = rolloutTrajectory(line);
    assert.equal(trajectoryHash(back.initial, back.steps, back.outcome, back.verdict), r.trajectoryHash);
    // each step's observation is the one the agent acted on
    for (let k = 1; k < line.steps.length; k++)
      assert.deepEqual(line.steps[k].observation, line.steps[k - 1].next_observation);
  }
});

test("preference pairs: a passing and a failing trajectory of the same task and seed", async () => {
  const { records } = await scripted;
  const { out } = await lines(records, { format: "preference" });
  // lost-reply: cautious passes and new-key-retry fails on each of the 2 seeds; approved-replacement: both pass
  const expected = records.filter(
    (r) => r.spec.agent.id === "new-key-retry" && r.outcome !== "passed" && r.spec.family === "lost-reply",
  ).length;
  assert.ok(expected > 0);
  assert.equal(out.length, expected);
  for (const raw of out) {
    assertValid("preference", raw);
    const line = raw as PreferenceLine;
    assert.notDeepEqual(line.chosen, line.rejected);
    assert.equal(line.prompt[0].role, "system");
  }
});

test("infrastructure errors never become training data; heldout only when named; filters", async () => {
  const { records } = await scripted;
  const base = records[0];
  const infra: TrialRecord = { ...base, outcome: "infra_error", fault: "infrastructure" };
  const heldout: TrialRecord = { ...base, task: { ...base.task, split: "heldout" } };
  for (const format of ["sft", "rollouts", "preference"] as const) {
    const { result } = await lines([infra, heldout], {
      format,
      filter: { outcomes: ["infra_error", "passed"] },
    });
    assert.equal(result.trials, 0, format);
    assert.equal(result.excluded.infrastructure, 1);
    assert.equal(result.excluded.heldout, 1);
  }
  const named = await lines([heldout], { format: "rollouts", filter: { split: "heldout" } });
  assert.equal(named.out.length, 1);
  const sftDefault = await lines(records, { format: "sft" });
  assert.equal(sftDefault.out.length, records.filter((r) => r.outcome === "passed").length);
  const byVariant = await lines(records, { format: "rollouts", filter: { variant: "v-none" } });
  assert.equal(byVariant.out.length, 0);
  const baseOnly = await lines(records, { format: "rollouts", filter: { variant: "base" } });
  assert.equal(baseOnly.out.length, records.length);
});
