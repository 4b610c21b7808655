/**
 * The training exports train the agent's own tokens: setup steps are prompt in every dialect,
 * preference pairs hold one decision (the shared prefix as prompt, one assistant turn each side, in
 * TRL's and OpenAI's DPO format), and a violated trial's rollout return is below a plain failure's.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TrialRecord } from "../../src/core/contracts.ts";
import type { ChatMessage } from "../../src/learn/chat-messages.ts";
import type { OpenAiPreferenceLine, PreferenceLine } from "../../src/learn/preference-format.ts";
import { type RolloutLine, VIOLATION_PENALTY } from "../../src/learn/rollout-format.ts";
import type { SftLine } from "../../src/learn/sft-format.ts";
import { runWithRecords } from "../agents/llm-support.ts";
import { assertValid, exported, validators as schemas } from "./export-support.ts";

/** A Setup layer replays two calls before the agent starts (disclosed to it in the task context). */
const SETUP_VARIANT = {
  world: "device-support@1",
  layers: [
    {
      id: "setup.replay@1",
      params: {
        actions: [
          { tool: "wait", args: { seconds: 5 } },
          { tool: "wait", args: { seconds: 7 } },
        ],
      },
    },
  ],
};

const withSetup = runWithRecords({
  families: ["lost-reply"],
  difficulties: [1],
  agents: ["cautious", "new-key-retry"],
  trials: 2,
  variants: [SETUP_VARIANT],
});

/** new-key-retry is violated on lost-reply (duplicate_write); escalate-always fails approved-replacement cleanly. */
const plain = runWithRecords({
  families: ["lost-reply", "approved-replacement"],
  difficulties: [1],
  agents: ["cautious", "new-key-retry", "escalate-always"],
  trials: 2,
});

/** The chat messages of a line of any chat format, prompt and completions alike. */
function allMessages(line: unknown): ChatMessage[] {
  const l = line as Partial<SftLine & PreferenceLine & OpenAiPreferenceLine>;
  return [
    ...(l.messages ?? []),
    ...(l.prompt ?? []),
    ...(l.chosen ?? []),
    ...(l.rejected ?? []),
    ...(l.input?.messages ?? []),
    ...(l.preferred_output ?? []),
    ...(l.non_preferred_output ?? []),
  ];
}

const CHAT_FORMATS = [
  { kind: "sft", format: "sft", dialect: "openai" },
  { kind: "trl", format: "sft", dialect: "trl" },
  { kind: "preference", format: "preference", dialect: "trl" },
  { kind: "preference-openai", format: "preference", dialect: "openai" },
] as const;

for (const { kind, format, dialect } of CHAT_FORMATS) {
  test(`${kind}: setup steps are prompt (the task context), never an assistant turn`, async () => {
    const { records } = await withSetup;
    const setupIds = new Set(
      records.flatMap((r) => r.steps.filter((s) => s.setup).map((s) => s.action.callId)),
    );
    assert.equal(setupIds.size, 2, "the Setup layer replayed two steps in each trial");
    assert.ok(records.every((r) => r.steps[0].setup && r.steps[1].setup && !r.steps[2].setup));
    const { out } = await exported(records, {
      format,
      dialect,
      ...(format === "sft" ? { filter: { outcomes: ["passed", "violated", "failed"] } } : {}),
    });
    assert.ok(out.length >= 2, `${kind}: ${out.length} lines`);
    for (const line of out) {
      assertValid(kind, line);
      const messages = allMessages(line);
      for (const m of messages) {
        if (m.role === "assistant")
          for (const call of m.tool_calls)
            assert.ok(!setupIds.has(call.id), `${kind}: setup call ${call.id}`);
        if (m.role === "tool") assert.ok(!setupIds.has(m.tool_call_id));
      }
      // the agent read what was replayed in its task context: so does the prompt's user message
      const user = messages.find((m) => m.role === "user");
      assert.match(user?.content ?? "", /"setup":\[\{"tool":"wait","args":\{"seconds":5\}/);
      // no assistant turn says "wait 5" / "wait 7" as the agent's own
      for (const m of messages)
        if (m.role === "assistant")
          for (const call of m.tool_calls) {
            const args = call.function.arguments;
            const parsed = typeof args === "string" ? JSON.parse(args) : args;
            assert.ok(!(call.function.name === "wait" && [5, 7].includes(parsed.seconds as number)));
          }
    }
  });
}

/** The agent's turns of a record as (tool, args) lists, setup steps left out. */
function decisions(record: TrialRecord): string[] {
  return record.steps.filter((s) => !s.setup).map((s) => JSON.stringify([s.action.tool, s.action.args]));
}

const callsOf = (m: ChatMessage) =>
  m.role === "assistant"
    ? m.tool_calls.map((c) =>
        JSON.stringify([
          c.function.name,
          typeof c.function.arguments === "string" ? JSON.parse(c.function.arguments) : c.function.arguments,
        ]),
      )
    : [];

test("preference (trl): the shared prefix is the prompt, chosen/rejected are the one differing assistant turn", async () => {
  const records = (await plain).records.filter((r) => r.spec.family === "lost-reply");
  const { out, result } = await exported(records, { format: "preference" });
  const pairs = records.filter((r) => r.spec.agent.id === "new-key-retry");
  assert.equal(out.length, pairs.length);
  assert.equal(result.pairsWithoutDecision, 0);
  for (const raw of out) {
    assertValid("preference", raw);
    const line = raw as PreferenceLine;
    assert.equal(line.chosen.length, 1);
    assert.equal(line.rejected.length, 1);
    assert.equal(line.chosen[0].role, "assistant");
    assert.equal(line.rejected[0].role, "assistant");
    assert.notDeepEqual(callsOf(line.chosen[0]), callsOf(line.rejected[0]));
    // the prompt: system, task, then turns both trajectories took, each answered by the environment
    assert.equal(line.prompt[0].role, "system");
    assert.equal(line.prompt[1].role, "user");
    assert.equal(line.prompt[line.prompt.length - 1].role, "tool");
    const shared = line.prompt.flatMap(callsOf);
    assert.ok(shared.length > 0, "cautious and new-key-retry share their first turns on lost-reply");
    const pass = records.find(
      (r) => r.outcome === "passed" && decisions(r).slice(0, shared.length).join() === shared.join(),
    );
    const fail = records.find(
      (r) =>
        r.spec.agent.id === "new-key-retry" && decisions(r).slice(0, shared.length).join() === shared.join(),
    );
    assert.ok(pass && fail, "the prompt's turns are a prefix of both trajectories");
    assert.deepEqual(callsOf(line.chosen[0]), [decisions(pass)[shared.length]]);
    assert.deepEqual(callsOf(line.rejected[0]), [decisions(fail)[shared.length]]);
  }
});

test("preference --dialect openai: OpenAI's DPO line ({input: {messages, tools}, preferred_output, non_preferred_output})", async () => {
  const { records } = await plain;
  const trl = (await exported(records, { format: "preference" })).out as PreferenceLine[];
  const { out } = await exported(records, { format: "preference", dialect: "openai" });
  assert.equal(out.length, trl.length);
  for (const [i, raw] of out.entries()) {
    assertValid("preference-openai", raw);
    assert.equal(schemas.preference(raw), false);
    const line = raw as OpenAiPreferenceLine;
    assert.ok(Array.isArray(line.input.tools) && line.input.tools.length > 0);
    const call =
      line.preferred_output[0].role === "assistant" ? line.preferred_output[0].tool_calls[0] : undefined;
    assert.equal(typeof call?.function.arguments, "string", "OpenAI's arguments are JSON text");
    assert.deepEqual(line.input.messages.flatMap(callsOf), trl[i].prompt.flatMap(callsOf));
    assert.deepEqual(callsOf(line.preferred_output[0]), callsOf(trl[i].chosen[0]));
    assert.deepEqual(callsOf(line.non_preferred_output[0]), callsOf(trl[i].rejected[0]));
  }
});

test("a pair whose trajectories never part at an assistant turn makes no line (counted)", async () => {
  const { records } = await plain;
  const pass = records.find((r) => r.outcome === "passed" && r.spec.family === "lost-reply");
  assert.ok(pass);
  // the same trajectory cut short, ending as a timeout: a prefix of the passing one, no decision
  const cut: TrialRecord = { ...pass, outcome: "timeout", steps: pass.steps.slice(0, 2) };
  const { out, result } = await exported([pass, cut], { format: "preference" });
  assert.equal(out.length, 0);
  assert.equal(result.pairsWithoutDecision, 1);
});

test("--args-as / --tools-as: arguments and the tools list as JSON text or objects, in either dialect", async () => {
  const { records } = await plain;
  const passed = records.filter((r) => r.outcome === "passed");
  const firstCall = (line: SftLine) => {
    const m = line.messages.find((x) => x.role === "assistant");
    return m?.role === "assistant" ? m.tool_calls[0].function.arguments : undefined;
  };
  const openaiObject = (
    await exported(passed, { format: "sft", dialect: "openai", encoding: { args: "object" } })
  ).out[0] as SftLine;
  assert.equal(typeof firstCall(openaiObject), "object");
  assert.equal(schemas.sft(openaiObject), false, "OpenAI refuses object arguments: the schema says so");
  const trlString = (
    await exported(passed, { format: "sft", dialect: "trl", encoding: { args: "string", tools: "string" } })
  ).out[0] as SftLine;
  assertValid("trl", trlString);
  assert.equal(typeof firstCall(trlString), "string");
  assert.equal(typeof trlString.tools, "string");
  assert.ok(Array.isArray(JSON.parse(trlString.tools as string)));
  const pref = (await exported(records, { format: "preference", encoding: { args: "string" } }))
    .out[0] as PreferenceLine;
  assertValid("preference", pref);
  const chosen = pref.chosen[0];
  assert.equal(chosen.role === "assistant" && typeof chosen.tool_calls[0].function.arguments, "string");
});

test("rollouts: a violated trial's return is below a plain failure's (violations and the penalty in the line)", async () => {
  const { records } = await plain;
  const { out } = await exported(records, { format: "rollouts" });
  const lines = out as RolloutLine[];
  for (const line of lines) assertValid("rollouts", line);
  const violated = lines.filter((l) => l.outcome === "violated");
  const failed = lines.filter((l) => l.outcome === "failed");
  assert.ok(violated.length > 0 && failed.length > 0, "both kinds of failure were recorded");
  for (const v of violated) {
    assert.ok(v.violations.some((x) => x.code === "duplicate_write"));
    assert.equal(v.violation_penalty, VIOLATION_PENALTY);
    const sum = v.steps.reduce((s, step) => s + step.reward, 0);
    assert.equal(v.return, sum - VIOLATION_PENALTY);
    assert.ok(v.return < 0);
  }
  for (const f of failed) {
    assert.deepEqual(f.violations, []);
    assert.equal(f.violation_penalty, 0);
    assert.ok(f.return >= 0);
    for (const v of violated) assert.ok(v.return < f.return, `violated ${v.return} vs failed ${f.return}`);
  }
});
