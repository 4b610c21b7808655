/**
 * "Solvable and not trivial", decided once for every preset of the checker: what a policy promises on
 * each task it plays, and whether an episode broke that promise. The known-good policy must pass
 * (the task is solvable); the null agent, a random agent and each known-bad policy must not (the task
 * is not trivial, the bad policy is caught) — a bad policy with one of its expected violation codes
 * when some are listed.
 */
import type { Outcome } from "../core/contracts.ts";

/** What a policy must do on every task it plays. */
export type Expectation = { must: "pass" } | { must: "fail"; codes?: readonly string[] };

/** The known-good policy's promise: it solves every task. */
export const SOLVES: Expectation = { must: "pass" };
/** The null and random agents' promise: they solve nothing. */
export const SOLVES_NOTHING: Expectation = { must: "fail" };

/**
 * What counts as failing: `any` outcome but `passed` (selftest, the quality gate, the audit's agents:
 * running out of steps fails too), or only a verifier's `failed` or `violated` (conformance: a bad
 * policy must be caught by the verifier, not by the budget).
 */
export type Failing = "any" | "verdict";

/** One played episode, as far as the promise reads it. */
export interface Played {
  outcome: Outcome;
  /** The violation codes of its verdict (read only for a must-fail promise with codes). */
  violations?: readonly string[];
}

/**
 * How the episode broke the promise, or undefined when it kept it: `unsolved` (must pass, did not),
 * `passed` (must fail, passed), `not-caught` (must fail, did not pass, but not by the verifier under
 * `failing: "verdict"`), `no-expected-code` (failed without any of the expected codes).
 */
export type Broken = "unsolved" | "passed" | "not-caught" | "no-expected-code";

export function brokenPromise(
  want: Expectation,
  played: Played,
  failing: Failing = "any",
): Broken | undefined {
  if (want.must === "pass") return played.outcome === "passed" ? undefined : "unsolved";
  if (played.outcome === "passed") return "passed";
  if (failing === "verdict" && played.outcome !== "failed" && played.outcome !== "violated")
    return "not-caught";
  const codes = want.codes ?? [];
  if (codes.length && !(played.violations ?? []).some((c) => codes.includes(c))) return "no-expected-code";
  return undefined;
}
