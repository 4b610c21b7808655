/**
 * runTrial: every planned trial ends in exactly one outcome, whatever the agent or world does,
 * and its record carries the spec, the steps with virtual time and (when the episode ended) the verdict.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type {
  Agent,
  AgentAction,
  Observation,
  TrialRecord,
  TrialRecordSummary,
} from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import { runTrial } from "../../src/runner/trial.ts";
import { goodToyAgent, overshooter, quitter, type ToyBugs, toyWorld } from "../support/toy-world.ts";
import { trialSpec } from "../support/trial-spec.ts";

const world = toyWorld();

/** An agent whose every act() is `next(turn)` (may throw, return junk or never resolve). */
function agent(next: (turn: number, obs: Observation) => unknown, onStart?: () => void): Agent {
  return {
    id: "hand-made",
    start() {
      onStart?.();
      let turn = 0;
      return { act: async (obs: Observation) => next(turn++, obs) as AgentAction };
    },
  };
}

const peekForever = agent(() => ({ tool: "peek", args: {} }));

/** What every record must hold, whatever its outcome. */
function checkRecord(record: TrialRecord, spec: ReturnType<typeof trialSpec>): void {
  assert.equal(record.schemaVersion, 1);
  assert.deepStrictEqual(record.spec, spec);
  assert.equal(record.stats.steps, record.steps.length);
  let t = 0;
  for (const [i, step] of record.steps.entries()) {
    assert.equal(step.index, i);
    assert.equal(typeof step.t, "number");
    assert.ok(step.t >= t, `virtual time goes forward (step ${i}: ${step.t} < ${t})`);
    t = step.t;
    assert.equal(step.observation.kind, "tool_result");
    if (step.observation.kind === "tool_result") {
      assert.equal(step.observation.now, step.t);
      assert.equal(step.observation.callId, step.action.callId);
    }
  }
  if (record.steps.length) assert.equal(record.stats.virtualSeconds, record.steps[record.steps.length - 1].t);
  assert.ok(!Number.isNaN(Date.parse(record.startedAt)) && !Number.isNaN(Date.parse(record.finishedAt)));
  assert.ok(typeof record.reason === "string" && record.reason.length > 0, `a reason for ${record.outcome}`);
  assert.deepStrictEqual(JSON.parse(JSON.stringify(record)), record, "a record is plain JSON");
}

async function run(a: Agent, overrides: Parameters<typeof trialSpec>[0] = {}, bugs?: ToyBugs) {
  const spec = trialSpec(overrides);
  const record = await runTrial(spec, { world: bugs ? toyWorld(bugs) : world, agent: a });
  checkRecord(record, spec);
  return record;
}

describe("runTrial outcomes", () => {
  test("a good agent passes; the record has the verdict, the task, numbered calls and virtual time", async () => {
    const r = await run(goodToyAgent, { family: "wait-bonus", difficulty: 2, seed: 3 });
    assert.equal(r.outcome, "passed", r.reason);
    assert.ok(r.verdict?.passed);
    assert.equal(r.task.family, "wait-bonus");
    assert.equal(r.task.seed, 3);
    assert.equal(r.initial?.kind, "task");
    assert.deepEqual(
      r.steps.map((s) => s.action.callId),
      r.steps.map((_, i) => `call-${i}`),
    );
    assert.ok(r.steps.some((s) => s.action.tool === "wait"));
    assert.ok(r.stats.virtualSeconds >= 60, "the wait advanced virtual time");
    assert.equal(r.steps[r.steps.length - 1].terminated, true);
    assert.match(r.trajectoryHash, /^[0-9a-f]{16}$/);
  });

  test("a verdict with a violation is `violated`; a plain miss is `failed`", async () => {
    const v = await run(overshooter);
    assert.equal(v.outcome, "violated");
    assert.deepEqual(
      v.verdict?.violations.map((x) => x.code),
      ["overshoot"],
    );
    const f = await run(quitter);
    assert.equal(f.outcome, "failed");
    assert.equal(f.verdict?.passed, false);
    assert.deepEqual(f.verdict?.violations, []);
  });

  test("act() that throws → agent_error, with the steps before it", async () => {
    const r = await run(
      agent((turn) => {
        if (turn < 2) return { tool: "peek", args: {} };
        throw new Error("policy bug");
      }),
    );
    assert.equal(r.outcome, "agent_error");
    assert.match(r.reason, /policy bug/);
    assert.equal(r.steps.length, 2);
  });

  for (const [label, value] of [
    ["undefined", undefined],
    ["null", null],
    ["{}", {}],
    ["{tool: 5}", { tool: 5 }],
    ['{tool: ""}', { tool: "" }],
    ["a string", "peek"],
    ["an array", [{ tool: "peek", args: {} }]],
    ["args that are not an object", { tool: "peek", args: [1, 2] }],
  ] as const) {
    test(`act() returning ${label} → agent_error`, async () => {
      const r = await run(agent((turn) => (turn === 0 ? { tool: "peek", args: {} } : value)));
      assert.equal(r.outcome, "agent_error", r.reason);
      assert.equal(r.steps.length, 1, "the good first action was recorded");
    });
  }

  test("start() that throws, or rejects → agent_error", async () => {
    const throws: Agent = {
      id: "x",
      start() {
        throw new Error("cannot start");
      },
    };
    const rejects: Agent = { id: "y", start: () => Promise.reject(new Error("no session")) };
    for (const a of [throws, rejects]) {
      const r = await run(a);
      assert.equal(r.outcome, "agent_error");
      assert.equal(r.steps.length, 0);
    }
  });

  test("an act() that never resolves → timeout (wall-clock budget)", async () => {
    const r = await run(
      agent((turn) => (turn === 0 ? { tool: "peek", args: {} } : new Promise(() => {}))),
      { budget: { maxSteps: 50, wallTimeoutMs: 50 } },
    );
    assert.equal(r.outcome, "timeout");
    assert.equal(r.steps.length, 1);
  });

  test("a start() that never resolves → timeout", async () => {
    const hangs: Agent = { id: "h", start: () => new Promise(() => {}) };
    const r = await run(hangs, { budget: { maxSteps: 50, wallTimeoutMs: 50 } });
    assert.equal(r.outcome, "timeout");
  });

  test("the step budget → budget_exhausted after exactly maxSteps steps", async () => {
    const r = await run(peekForever, { budget: { maxSteps: 7 } });
    assert.equal(r.outcome, "budget_exhausted");
    assert.equal(r.steps.length, 7);
    assert.match(r.reason, /step budget/);
  });

  test("the virtual-time budget → budget_exhausted", async () => {
    const r = await run(
      agent(() => ({ tool: "wait", args: { seconds: 60 } })),
      { budget: { maxSteps: 1000, maxVirtualSeconds: 300 } },
    );
    assert.equal(r.outcome, "budget_exhausted");
    assert.match(r.reason, /virtual-time/);
    assert.ok(r.stats.virtualSeconds >= 300);
    assert.ok(r.steps.length < 10);
  });

  test("the token budget counts meta.tokensIn/Out → budget_exhausted", async () => {
    const r = await run(
      agent(() => ({ tool: "peek", args: {}, meta: { tokensIn: 100, tokensOut: 20, costUsd: 0.01 } })),
      { budget: { maxSteps: 1000, maxTokens: 500 } },
    );
    assert.equal(r.outcome, "budget_exhausted");
    assert.equal(r.steps.length, 5);
    assert.equal(r.stats.tokensIn, 500);
    assert.equal(r.stats.tokensOut, 100);
    assert.deepEqual(r.steps[0].meta, { tokensIn: 100, tokensOut: 20, costUsd: 0.01 });
  });

  test("a world whose step throws → infra_error", async () => {
    const r = await run(peekForever, {}, { stepThrows: true });
    assert.equal(r.outcome, "infra_error");
    assert.match(r.reason, /step exploded/);
    assert.equal(r.steps.length, 1);
  });

  test("a world whose reset throws → infra_error; the agent is never started", async () => {
    let started = 0;
    const r = await run(
      agent(
        () => ({ tool: "peek", args: {} }),
        () => started++,
      ),
      {},
      { resetThrows: true },
    );
    assert.equal(r.outcome, "infra_error");
    assert.equal(started, 0);
  });

  test("a task that cannot be generated → infra_error", async () => {
    const r = await run(peekForever, { family: "no-such-family" });
    assert.equal(r.outcome, "infra_error");
  });

  test("a reset that leaves a foreign-owned pending job → contaminated; the agent is never started", async () => {
    let started = 0;
    const r = await run(
      agent(
        () => ({ tool: "peek", args: {} }),
        () => started++,
      ),
      {},
      { foreignJobOnReset: true },
    );
    assert.equal(r.outcome, "contaminated");
    assert.match(r.reason, /another episode/);
    assert.equal(started, 0);
    assert.equal(r.steps.length, 0);
  });

  test("a start state that differs from a fresh instance → contaminated", async () => {
    const r = await run(goodToyAgent, {}, { sharedStateLeak: true });
    assert.equal(r.outcome, "contaminated");
    assert.match(r.reason, /freshly built/);
  });

  test("a job of another episode firing during the trial → contaminated, even though the agent passed", async () => {
    const r = await run(goodToyAgent, {}, { misownedJobs: true });
    assert.equal(r.outcome, "contaminated");
    assert.equal(r.verdict?.passed, true);
  });

  test("the isolation checks are recorded: passed on a world that declares inspection", async () => {
    const r = await run(goodToyAgent);
    assert.deepStrictEqual(r.isolation, { cleanStart: "passed", afterEnd: "passed" });
    const dirty = await run(goodToyAgent, {}, { sharedStateLeak: true });
    assert.equal(dirty.isolation?.cleanStart, "failed");
  });

  test("an environment without inspection: the checks are not checkable, never a silent pass", async () => {
    // the toy world, but declaring no capabilities (as a remote world does); even a leaky reset
    // cannot be caught, and the record says so
    const blind = (bugs: ToyBugs) => ({
      ...toyWorld(bugs),
      create: () => Object.assign(toyWorld(bugs).create(), { capabilities: {} }),
    });
    for (const bugs of [{}, { sharedStateLeak: true }]) {
      const spec = trialSpec({});
      const r = await runTrial(spec, { world: blind(bugs), agent: goodToyAgent });
      assert.equal(r.outcome, "passed");
      assert.deepStrictEqual(r.isolation, { cleanStart: "not_checkable", afterEnd: "not_checkable" });
    }
  });

  test("a ProvingError of the agent's fault → agent_error; of infrastructure → infra_error", async () => {
    const fault = (code: "agent_exited" | "provider_server_error") =>
      agent(() => {
        throw new ProvingError(code, "provider failed");
      });
    assert.equal((await run(fault("agent_exited"))).outcome, "agent_error");
    assert.equal((await run(fault("provider_server_error"))).outcome, "infra_error");
  });
});

describe("runTrial bookkeeping", () => {
  test("end() gets the outcome and verdict once; a throwing end() changes nothing", async () => {
    const ended: TrialRecordSummary[] = [];
    let startedAs = "";
    const a: Agent = {
      id: "e",
      start(ep) {
        startedAs = ep.episodeId;
        const inner = goodToyAgent.start(ep) as { act(o: Observation): Promise<AgentAction> };
        return {
          act: (o) => inner.act(o),
          async end(summary) {
            ended.push(summary);
            throw new Error("cleanup failed");
          },
        };
      },
    };
    const spec = trialSpec();
    const r = await runTrial(spec, { world, agent: a });
    assert.equal(r.outcome, "passed");
    assert.equal(ended.length, 1);
    // the opaque id it was told at start, never the trial id (the store's key)
    assert.equal(ended[0].episodeId, startedAs);
    assert.notEqual(ended[0].episodeId, spec.id);
    assert.ok(!JSON.stringify(ended[0]).includes(spec.id), "nothing in the summary names the trial");
    assert.equal(ended[0].outcome, "passed");
    assert.deepStrictEqual(ended[0].verdict, r.verdict);
  });

  test("the agent's callId is passed through; the episode info hides the task (no task id, seed or trial id)", async () => {
    let info: unknown;
    const a: Agent = {
      id: "c",
      start(ep) {
        info = ep;
        return { act: async () => ({ tool: "finish", args: {}, callId: "mine-1" }) };
      },
    };
    const spec = trialSpec({ seed: 5 });
    const r = await runTrial(spec, { world, agent: a });
    assert.equal(r.steps[0].action.callId, "mine-1");
    assert.deepEqual(Object.keys(info as object).sort(), [
      "episodeId",
      "instruction",
      "samplingSeed",
      "tools",
      "world",
    ]);
    const text = JSON.stringify(info);
    assert.ok(!text.includes(r.task.id) && !text.includes(spec.id), text);
    assert.notEqual((info as { samplingSeed: number }).samplingSeed, 5);
    assert.deepEqual(
      (info as { tools: { name: string }[] }).tools.map((t) => t.name),
      ["peek", "add", "wait", "finish"],
    );
  });

  test("the same spec twice → the same trajectory hash; another seed → another", async () => {
    const spec = trialSpec({ family: "wait-bonus", difficulty: 3, seed: 11 });
    const a = await runTrial(spec, { world, agent: goodToyAgent });
    const b = await runTrial(spec, { world, agent: goodToyAgent });
    assert.equal(a.trajectoryHash, b.trajectoryHash);
    assert.deepStrictEqual(a.steps, b.steps);
    const c = await runTrial({ ...spec, seed: 12 }, { world, agent: goodToyAgent });
    assert.notEqual(c.trajectoryHash, a.trajectoryHash);
  });

  test("onStep sees every step as it is recorded", async () => {
    const seen: number[] = [];
    const r = await runTrial(trialSpec(), { world, agent: goodToyAgent, onStep: (s) => seen.push(s.index) });
    assert.deepEqual(
      seen,
      r.steps.map((s) => s.index),
    );
  });
});
