/**
 * The conformance checks catch broken worlds: the toy world with one bug switched on must fail the
 * checks that are about that bug (read from the report; everything runs in this process).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkEnvironment } from "../../src/testing/index.ts";
import { type ToyBugs, toyWorld } from "../support/toy-world.ts";

async function failedChecks(bugs: (keyof ToyBugs)[]): Promise<string[]> {
  const report = await checkEnvironment(toyWorld(Object.fromEntries(bugs.map((b) => [b, true]))), {
    expectBackgroundJobs: true,
    fuzzPerTool: 100,
    seeds: [0, 1],
  });
  assert.equal(report.counts.not_checkable, 0, "the toy world declares everything the checks need");
  return report.checks.filter((c) => c.status === "failed").map((c) => c.name);
}

/** Each bug, and the checks (by name prefix) that must fail because of it. */
const CASES: [keyof ToyBugs, string[]][] = [
  ["nondeterministic", ["determinism: reach", "determinism: wait-bonus"]],
  ["saveDropsJobs", ["save/restore: wait-bonus"]],
  ["resetKeepsJobs", ["reset: wait-bonus"]],
  ["foreignJobOnReset", ["reset: reach", "policies: known-good good passes reach"]],
  ["sharedStateLeak", ["reset: reach", "policies: known-good good passes reach"]],
  ["misownedJobs", ["reset: reach", "policies: known-good good passes reach"]],
  ["acceptsBadArgs", ["bad input: 100 malformed argument objects to add"]],
  ["throwsOnBadArgs", ["bad input: 100 malformed argument objects to add"]],
  ["stepThrows", ["determinism: reach", "policies: known-good good passes reach"]],
  ["resetThrows", ["tools:", "determinism: reach", "policies: known-good good passes reach"]],
];

describe("the conformance checks detect broken worlds", () => {
  test("the toy world without bugs fails nothing", async () => {
    assert.deepEqual(await failedChecks([]), []);
  });
  for (const [bug, mustFail] of CASES) {
    test(`${bug} is caught by: ${mustFail.join("; ")}`, async () => {
      const failed = await failedChecks([bug]);
      for (const name of mustFail) {
        assert.ok(
          failed.some((f) => f.startsWith(name)),
          `"${name}" should fail with ${bug}; failed: ${JSON.stringify(failed)}`,
        );
      }
    });
  }
  test("a bug about one thing leaves the unrelated checks passing", async () => {
    const failed = await failedChecks(["acceptsBadArgs"]);
    assert.deepEqual(failed, ["bad input: 100 malformed argument objects to add"]);
  });
});
