import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { detectContext, diagnose } from "../../src/rigger/diagnose.ts";
import { PATTERN_DETECTORS } from "../../src/rigger/patterns/index.ts";
import { traceSteps } from "../../src/rigger/trace-steps.ts";
import {
  err,
  type FakeStep,
  fakeRecord,
  gym,
  ok,
  PLANTED_CASES,
  plantedAgent,
  rolloutsFor,
  scripted,
} from "./support.ts";

const ctx = { terminalTools: ["close"], writeTools: ["refund", "create"] };
const patterns = (rs: Parameters<typeof diagnose>[0]) => diagnose(rs, ctx).map((d) => d.pattern);

describe("pattern detectors on synthetic trajectories", () => {
  it("retry under a new key after a timeout, on the same subject", () => {
    const r = fakeRecord("t1", [
      { tool: "refund", args: { order: "O1", idempotency_key: "k1" }, result: err("timeout", true) },
      { tool: "wait", args: { seconds: 5 }, result: ok() },
      { tool: "refund", args: { order: "O1", idempotency_key: "k2" }, result: ok({ id: "R2" }) },
      { tool: "close", result: ok() },
    ]);
    const d = diagnose([r], ctx);
    assert.equal(d[0].pattern, "retry-new-key-after-timeout");
    assert.deepEqual(d[0].evidence, [{ trialId: "t1", steps: [0, 2] }]);
    assert.equal(d[0].facts?.tool, "refund");
    // the same retry under the SAME key is the safe thing, not the pattern
    const safe = fakeRecord("t2", [
      { tool: "refund", args: { order: "O1", idempotency_key: "k1" }, result: err("timeout", true) },
      { tool: "refund", args: { order: "O1", idempotency_key: "k1" }, result: ok({ id: "R1" }) },
      { tool: "close", result: ok() },
    ]);
    assert.ok(!patterns([safe]).includes("retry-new-key-after-timeout"));
  });

  it("a claim after a failed write that nothing confirmed; a lookup by key clears it", () => {
    const claim = fakeRecord("c1", [
      { tool: "create", args: { case: "C1", idempotency_key: "k" }, result: err("timeout", true) },
      { tool: "close", args: { resolution: "created" }, result: ok() },
    ]);
    assert.equal(patterns([claim])[0], "unobserved-claim");
    const looked = fakeRecord("c2", [
      { tool: "create", args: { case: "C1", idempotency_key: "k" }, result: err("timeout", true) },
      { tool: "find", args: { idempotency_key: "k" }, result: ok({ found: [{ id: "R" }] }) },
      { tool: "close", args: { resolution: "created" }, result: ok() },
    ]);
    assert.ok(!patterns([looked]).includes("unobserved-claim"));
    // the verifier's unverified-claim check is evidence on its own
    const judged = fakeRecord("c3", [{ tool: "close", result: ok() }], {
      violations: [{ code: "unsupported_claim", step: 0, detail: "" }],
    });
    assert.deepEqual(diagnose([judged], ctx)[0].evidence, [{ trialId: "c3", steps: [0] }]);
  });

  it("a write before its precondition: the world's refusal or the verifier's violation", () => {
    const refused = fakeRecord("w1", [
      { tool: "create", args: { idempotency_key: "k" }, result: err("approval_required") },
      { tool: "close", result: ok() },
    ]);
    assert.ok(patterns([refused]).includes("write-before-precondition"));
    const judged = fakeRecord(
      "w2",
      [
        { tool: "create", result: ok() },
        { tool: "close", result: ok() },
      ],
      {
        violations: [{ code: "unauthorized_write_attempt", step: 0, detail: "" }],
      },
    );
    assert.deepEqual(diagnose([judged], ctx)[0].evidence, [{ trialId: "w2", steps: [0] }]);
  });

  it("giving up after a retryable error, an ignored error, a wait loop, data lost across a link", () => {
    const gaveUp = fakeRecord("g", [
      { tool: "lookup", result: err("unavailable", true) },
      { tool: "escalate", result: ok() },
      { tool: "close", result: ok() },
    ]);
    assert.deepEqual(patterns([gaveUp]), ["gave-up-while-recoverable"]);
    const ignored = fakeRecord("i", [
      { tool: "refund", args: { idempotency_key: "k" }, result: err("invalid_argument") },
      { tool: "close", result: ok() },
    ]);
    assert.ok(patterns([ignored]).includes("ignored-tool-error"));
    const loop = fakeRecord("l", [
      ...Array.from({ length: 5 }, (): FakeStep[] => [
        { tool: "status", args: { id: "A" }, result: ok({ s: "pending" }) },
        { tool: "wait", args: { seconds: 1 }, result: ok() },
      ]).flat(),
    ]);
    const d = diagnose([loop], ctx);
    assert.equal(d[0].pattern, "wait-loop");
    assert.equal(d[0].evidence[0].steps.length, 5);
    const link = fakeRecord("k", [
      { tool: "lookup", args: { id: "ORD-1" }, result: ok({ order: "ORD-1" }) },
      { tool: "close", result: ok(), task: true },
      { tool: "get_order", args: { id: "ORD-9" }, result: err("not_found") },
    ]);
    assert.ok(patterns([link]).includes("link-data-loss"));
  });

  it("passed trials are not evidence, and each pattern is labelled with its axis", () => {
    const r = fakeRecord(
      "p",
      [
        { tool: "refund", args: { order: "O1", idempotency_key: "k1" }, result: err("timeout", true) },
        { tool: "refund", args: { order: "O1", idempotency_key: "k2" }, result: ok() },
      ],
      { outcome: "passed" },
    );
    assert.deepEqual(diagnose([r], ctx), []);
    const axes = new Set(PATTERN_DETECTORS.map((p) => p.axis));
    assert.deepEqual([...axes].sort(), ["action", "observation", "start_state", "transition"]);
  });
});

describe("diagnosis of real trajectories", () => {
  it("names the planted weakness of each agent, with evidence steps on the write it mishandles", async () => {
    for (const c of PLANTED_CASES) {
      const rollouts = await rolloutsFor(c.world, plantedAgent(c.agent));
      const records = await rollouts.run({
        id: `diag-${c.agent}`,
        difficulties: [1, 2, 3],
        trials: 2,
        seed: 0,
        player: "target",
      });
      const d = diagnose(records, detectContext(rollouts.world.create().spec));
      assert.ok(d.length > 0, `${c.agent}: a diagnosis`);
      assert.equal(d[0].pattern, c.pattern, `${c.agent}: named ${c.pattern}`);
      assert.equal(d[0].facts?.tool, c.tool);
      for (const ev of d[0].evidence) {
        const record = records.find((r) => r.spec.id === ev.trialId);
        assert.ok(record && record.outcome !== "passed", "evidence comes from failed trials");
        const byIndex = new Map(traceSteps(record).map((s) => [s.index, s]));
        assert.equal(byIndex.get(ev.steps[0])?.tool, c.tool, "the first evidence step is the write");
      }
    }
  });

  it("finds nothing in the known-good policy's trajectories, and a write before approval in skip-approval's", async () => {
    const world = "device-support@1";
    const good = await (await rolloutsFor(world, await scripted(world, "cautious"))).run({
      id: "diag-good",
      difficulties: [1, 2, 3],
      trials: 2,
      seed: 0,
      player: "target",
    });
    const spec = gym.world(world).create().spec;
    assert.deepEqual(diagnose(good, detectContext(spec)), []);
    const skip = await (await rolloutsFor(world, await scripted(world, "skip-approval"))).run({
      id: "diag-skip",
      difficulties: [1, 2],
      trials: 2,
      seed: 0,
      player: "target",
    });
    const d = diagnose(skip, detectContext(spec));
    assert.equal(d[0]?.pattern, "write-before-precondition");
    assert.equal(d[0].axis, "action");
    assert.ok(d[0].families.includes("needs-approval"));
  });
});
