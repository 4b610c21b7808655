/**
 * The presets of the one checker: what each runs (checks, agents, thresholds) and that the
 * judgement of a policy's promise (`brokenPromise`) is the one they share.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { WorldDefinition } from "../../src/core/registry.ts";
import { createGym } from "../../src/gym/index.ts";
import {
  AGENT_CHECK_KINDS,
  brokenPromise,
  CHECK_KINDS,
  checkEnvironment,
  gateEpisodes,
  PRESETS,
  runSelftest,
  SOLVES,
  SOLVES_NOTHING,
} from "../../src/testing/index.ts";
import { vaultWorld } from "../audit/broken-worlds.ts";

const cell = { family: "count", difficulty: 1, seed: 0 };

describe("brokenPromise: solvable and not trivial, decided once", () => {
  test("the known-good must pass; anything else is unsolved", () => {
    assert.equal(brokenPromise(SOLVES, { outcome: "passed" }), undefined);
    for (const outcome of ["failed", "violated", "budget_exhausted", "agent_error"] as const)
      assert.equal(brokenPromise(SOLVES, { outcome }), "unsolved");
  });
  test("a policy that must fail: passing breaks it; failing by the budget counts only under failing 'any'", () => {
    assert.equal(brokenPromise(SOLVES_NOTHING, { outcome: "passed" }), "passed");
    assert.equal(brokenPromise(SOLVES_NOTHING, { outcome: "budget_exhausted" }), undefined);
    assert.equal(brokenPromise(SOLVES_NOTHING, { outcome: "budget_exhausted" }, "verdict"), "not-caught");
    assert.equal(brokenPromise(SOLVES_NOTHING, { outcome: "violated" }, "verdict"), undefined);
  });
  test("expected codes: one of them must be among the violations", () => {
    const want = { must: "fail", codes: ["dup_write", "unsupported_claim"] } as const;
    assert.equal(brokenPromise(want, { outcome: "violated", violations: ["dup_write"] }), undefined);
    assert.equal(brokenPromise(want, { outcome: "failed", violations: [] }), "no-expected-code");
    assert.equal(brokenPromise({ must: "fail", codes: [] }, { outcome: "failed" }), undefined);
  });
});

describe("presets", () => {
  test("each names its checks, agents and thresholds; conformance is the checker's default", () => {
    assert.deepEqual(PRESETS.conformance.kinds, CHECK_KINDS);
    assert.equal(PRESETS.conformance.failing, "verdict");
    assert.deepEqual(
      PRESETS.audit.kinds.filter((k) => (AGENT_CHECK_KINDS as readonly string[]).includes(k)),
      [...AGENT_CHECK_KINDS],
    );
    assert.deepEqual(PRESETS.audit.agents, ["known-good", "null", "random", "middling"]);
    assert.deepEqual(PRESETS.selftest.kinds, ["policies"]);
    assert.equal(PRESETS.selftest.failing, "any");
    assert.deepEqual(PRESETS.gate.agents, ["known-good", "null"]);
  });

  test("checkEnvironment runs the reference agents' checks only when their kinds are selected", async () => {
    const world = vaultWorld("null-passes");
    const quick = { seeds: [0], difficulties: [1], fuzzPerTool: 20, signalSeeds: 2 };
    const plain = await checkEnvironment(world, quick);
    assert.ok(plain.checks.every((c) => (CHECK_KINDS as readonly string[]).includes(c.kind)));
    const cheat = await checkEnvironment(world, { ...quick, kinds: ["cheating"] });
    assert.deepEqual(
      cheat.checks.map((c) => [c.name, c.status]),
      [
        ["cheating: a null agent (ends at once) passes nothing", "failed"],
        ["cheating: a random agent passes nothing", "failed"],
      ],
    );
    assert.match(cheat.checks[0].details[0], /^count d1 seed 0: a null agent passes \(submit\)$/);
    const sound = await checkEnvironment(vaultWorld("none"), {
      ...quick,
      difficulties: [1, 2],
      signalSeeds: 6,
      kinds: [...AGENT_CHECK_KINDS],
    });
    assert.deepEqual(
      sound.checks.map((c) => c.status),
      ["passed", "passed", "passed", "passed", "passed"],
      JSON.stringify(sound.checks, null, 1),
    );
  });

  test("checkEnvironment's audit preset: its checks, the known-good policy only, its defaults", async () => {
    const r = await checkEnvironment(vaultWorld("none"), {
      preset: "audit",
      seeds: [0],
      difficulties: [1, 2],
      fuzzPerTool: 20,
      signalSeeds: 6,
    });
    assert.deepEqual([...new Set(r.checks.map((c) => c.kind))], [...PRESETS.audit.kinds]);
    assert.deepEqual(
      r.checks.filter((c) => c.kind === "policies").map((c) => c.name),
      ["policies: known-good counter passes count"],
    );
    assert.equal(r.ok, true, JSON.stringify(r.checks, null, 1));
  });

  test("selftest: counts per policy and family; a broken promise is a problem", async () => {
    const world = vaultWorld("none");
    const ok = await runSelftest(createGym({ worlds: [world] }), { difficulties: [1], trials: 2 });
    assert.deepEqual(ok, {
      ok: true,
      policies: { counter: { count: { trials: 2, passed: 2, violations: {} } } },
      problems: [],
      worlds: ["vault@1"],
      trials: 2,
    });
    const lying: WorldDefinition = {
      ...world,
      expectedFailures: { counter: { families: ["count"], codes: [] } },
    };
    const bad = await runSelftest(createGym({ worlds: [lying] }), { difficulties: [1], trials: 1 });
    assert.deepEqual(bad.problems, ["vault@1: counter passed count d1 seed 0, which it is built to fail"]);
  });

  test("gate: accepted when solvable and not trivial; the null agent finds a trivial task", async () => {
    const good = await gateEpisodes(vaultWorld("none"), cell, "t");
    assert.equal(good.status, "accepted");
    assert.deepEqual(await gateEpisodes(vaultWorld("null-passes"), cell, "t"), {
      status: "rejected",
      reason: "trivial",
    });
    assert.ok(good.status === "accepted" && good.knownGood.steps.at(-1)?.action.tool === "submit");
  });
});
