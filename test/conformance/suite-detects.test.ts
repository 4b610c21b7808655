/**
 * The conformance suite catches broken worlds: the toy world with one bug switched on must fail
 * the suite's tests that are about that bug (run in a child process, TAP output parsed).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { ToyBugs } from "../support/toy-world.ts";

const fixture = fileURLToPath(new URL("./fixtures/broken-toy.ts", import.meta.url));

function failedTests(bugs: (keyof ToyBugs)[]): Promise<string[]> {
  // a child of `node --test` inherits NODE_TEST_CONTEXT and would report to us, not to its stdout
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "--test", "--test-reporter=tap", fixture],
      { env: { ...env, TOY_BUGS: bugs.join(",") }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => {
        const failed = [...stdout.matchAll(/^\s*not ok \d+ - (.*)$/gm)].map((m) => m[1].trim());
        const passed = [...stdout.matchAll(/^\s*ok \d+ - (.*)$/gm)].length;
        if (passed + failed.length === 0)
          reject(new Error(`no TAP results: ${String(err)}\n${stdout.slice(0, 2000)}`));
        else resolve(failed.filter((name) => !name.startsWith("conformance: ")));
      },
    );
  });
}

/** Each bug, and the tests (by name prefix) that must fail because of it. */
const CASES: [keyof ToyBugs, string[]][] = [
  ["nondeterministic", ["determinism: reach", "determinism: wait-bonus"]],
  ["saveDropsJobs", ["save/restore: wait-bonus"]],
  ["resetKeepsJobs", ["reset: wait-bonus"]],
  ["foreignJobOnReset", ["reset: reach", "policies: known-good good passes reach"]],
  ["sharedStateLeak", ["reset: reach", "policies: known-good good passes reach"]],
  ["misownedJobs", ["policies: known-good good passes reach"]],
  ["acceptsBadArgs", ["bad input: 100 malformed argument objects to add"]],
  ["throwsOnBadArgs", ["bad input: 100 malformed argument objects to add"]],
  ["stepThrows", ["determinism: reach", "policies: known-good good passes reach"]],
];

describe("the conformance suite detects broken worlds", { concurrency: 4 }, () => {
  test("the toy world without bugs fails nothing", async () => {
    assert.deepEqual(await failedTests([]), []);
  });
  for (const [bug, mustFail] of CASES) {
    test(`${bug} is caught by: ${mustFail.join("; ")}`, async () => {
      const failed = await failedTests([bug]);
      for (const name of mustFail) {
        assert.ok(
          failed.some((f) => f.startsWith(name)),
          `"${name}" should fail with ${bug}; failed: ${JSON.stringify(failed)}`,
        );
      }
    });
  }
});
