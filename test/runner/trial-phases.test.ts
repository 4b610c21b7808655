/**
 * The pieces of a trial on their own: the budgets checked before each act(), the classification of
 * what ends a trial, the outcome of a verdict and the wall-clock deadline.
 */
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { describe, test } from "node:test";
import type { Budget, TrialStats, Verdict } from "../../src/core/contracts.ts";
import { configError, ProvingError } from "../../src/core/errors.ts";
import { TrialEnd } from "../../src/core/trial-end.ts";
import { chargeUsage, exhaustedBudget } from "../../src/runner/budget.ts";
import { Deadline } from "../../src/runner/deadline.ts";
import { classify, verdictOutcome, verdictReason } from "../../src/runner/outcome.ts";

const stats = (over: Partial<TrialStats> = {}): TrialStats => ({
  steps: 0,
  virtualSeconds: 0,
  wallMs: 0,
  tokensIn: 0,
  tokensOut: 0,
  costUsd: 0,
  ...over,
});

describe("budgets", () => {
  const budget: Budget = { maxSteps: 10, maxVirtualSeconds: 100, maxTokens: 50, maxCostUsd: 1 };

  test("room left in every budget → no reason", () => {
    assert.equal(
      exhaustedBudget(budget, 9, stats({ virtualSeconds: 99, tokensIn: 49, costUsd: 0.99 })),
      undefined,
    );
    assert.equal(
      exhaustedBudget({ maxSteps: 1 }, 0, stats({ virtualSeconds: 1e9, tokensIn: 1e9 })),
      undefined,
    );
  });

  test("each budget names itself when spent; steps first, then virtual time, tokens, cost", () => {
    assert.equal(exhaustedBudget(budget, 10, stats()), "step budget of 10 exhausted");
    assert.equal(
      exhaustedBudget(budget, 0, stats({ virtualSeconds: 100 })),
      "virtual-time budget of 100 s exhausted",
    );
    assert.equal(
      exhaustedBudget(budget, 0, stats({ tokensIn: 30, tokensOut: 20 })),
      "token budget of 50 exhausted",
    );
    assert.equal(exhaustedBudget(budget, 0, stats({ costUsd: 1 })), "cost budget of $1 exhausted");
    const all = stats({ virtualSeconds: 100, tokensIn: 50, costUsd: 1 });
    assert.match(exhaustedBudget(budget, 10, all) ?? "", /^step budget/);
    assert.match(exhaustedBudget(budget, 0, all) ?? "", /^virtual-time budget/);
  });

  test("an action's meta is charged to the stats; absent fields cost nothing", () => {
    const s = stats();
    chargeUsage(s, { tokensIn: 10, tokensOut: 2, costUsd: 0.5 });
    chargeUsage(s, { tokensIn: 5 });
    chargeUsage(s, {});
    assert.deepEqual([s.tokensIn, s.tokensOut, s.costUsd], [15, 2, 0.5]);
  });
});

describe("classification", () => {
  test("whose call threw and which ProvingError decide outcome and fault", () => {
    const table: [unknown, "agent" | "world", string, string | undefined, string][] = [
      [new Error("bug"), "agent", "agent_error", "agent", "agent threw: bug"],
      [new Error("bug"), "world", "infra_error", "world", "world crashed: bug"],
      ["a string", "world", "infra_error", "world", "world crashed: a string"],
      [
        new ProvingError("provider_rate_limited", "429"),
        "agent",
        "infra_error",
        "infrastructure",
        "provider_rate_limited: 429",
      ],
      [
        new ProvingError("remote_unreachable", "refused"),
        "world",
        "infra_error",
        "infrastructure",
        "remote_unreachable: refused",
      ],
      [new ProvingError("agent_exited", "gone"), "agent", "agent_error", "agent", "agent_exited: gone"],
      [
        configError("capability_missing", "no clock"),
        "world",
        "infra_error",
        "config",
        "world crashed: no clock",
      ],
      [configError("bad_agent_option", "bad"), "agent", "agent_error", "agent", "agent threw: bad"],
    ];
    for (const [err, during, outcome, fault, reason] of table) {
      const end = classify(err, during);
      assert.deepEqual([end.outcome, end.fault, end.reason], [outcome, fault, reason], String(err));
    }
    const already = new TrialEnd("timeout", "late");
    assert.equal(classify(already, "world"), already);
  });

  test("a verdict's outcome: a violation first, whether it passed or not", () => {
    const v = (passed: boolean, codes: string[]): Verdict => ({
      passed,
      score: passed ? 1 : 0,
      checks: [{ name: "done", passed, detail: passed ? "yes" : "no" }],
      violations: codes.map((code) => ({ code, step: 0, detail: "" })),
      verifier: "verify.test@1",
    });
    assert.equal(verdictOutcome(v(true, [])), "passed");
    assert.equal(verdictOutcome(v(false, [])), "failed");
    assert.equal(verdictOutcome(v(true, ["dup"])), "violated");
    assert.equal(verdictReason(v(true, ["dup", "dup", "late"])), "violations: dup, late");
    assert.equal(verdictReason(v(false, [])), "failed checks: done (no)");
    assert.equal(verdictReason(v(true, [])), "all checks passed");
  });
});

describe("the deadline", () => {
  test("a passed deadline refuses work before it starts, naming the call", async () => {
    const d = new Deadline(performance.now() - 1);
    assert.equal(d.passed(), true);
    await assert.rejects(
      d.guard(Promise.resolve(1), "reset()"),
      (err: unknown) =>
        err instanceof TrialEnd &&
        err.outcome === "timeout" &&
        err.reason === "wall-clock timeout before reset()",
    );
    await assert.rejects(
      d.guard(Promise.resolve(1), () => "step()"),
      /before step\(\)/,
    );
    d.clear();
  });

  test("a deadline that fires rejects the calls awaited then, naming the one in progress", async () => {
    const d = new Deadline(performance.now() + 20);
    let during = "act()";
    const hung = d.guard(new Promise<never>(() => {}), () => during);
    during = "step()";
    await assert.rejects(
      hung,
      (err: unknown) => err instanceof TrialEnd && err.reason === "wall-clock timeout during step()",
    );
    assert.equal(d.fired, true);
  });

  test("work that settles first passes through; an unbounded deadline adds no wrapper", async () => {
    const d = new Deadline(performance.now() + 60_000);
    assert.equal(await d.guard(Promise.resolve(7), "act()"), 7);
    await assert.rejects(d.guard(Promise.reject(new Error("no")), "act()"), /no/);
    d.clear();
    assert.equal(d.fired, false);
    const work = Promise.resolve(1);
    assert.equal(new Deadline(Number.POSITIVE_INFINITY).guard(work, "act()"), work);
  });
});
