/**
 * The node:test face of `checkEnvironment`: one test per checked environment, one subtest per check
 * (a `not_checkable` check is a skipped subtest with its reason), failing with the report's failures.
 */
import { test } from "node:test";
import { assertConformant, type ConformanceReport } from "../../src/testing/index.ts";

export function conformanceTest(label: string, check: () => Promise<ConformanceReport>): void {
  test(`conformance: ${label}`, async (t) => {
    const report = await check();
    for (const c of report.checks) {
      await t.test(c.name, (sub) => {
        if (c.status === "not_checkable") sub.skip(c.reason);
        if (c.status === "failed") throw new Error(c.details.join("\n"));
      });
    }
    assertConformant(report);
  });
}
