import { ProvingError } from "../core/errors.ts";
import { type CheckResult, type ConformanceReport, formatReport } from "./report.ts";

/** Thrown by `assertConformant`: one error listing every failed check; the report is attached. */
export class ConformanceError extends ProvingError<"not_conformant"> {
  constructor(
    readonly report: ConformanceReport,
    /** The checks that made it throw. */
    readonly failures: CheckResult[],
  ) {
    super("not_conformant", formatReport(report, { passed: false }), { details: { failures } });
    this.name = "ConformanceError";
  }
}

export interface AssertConformantOptions {
  /** A check that is `not_checkable` fails the assertion too (default false: it is reported, not failed). */
  requireAll?: boolean;
}

/**
 * Throws a `ConformanceError` (code `not_conformant`) whose message lists every failed check with its
 * failures — and, with `requireAll`, every check that could not be checked — unless there is none.
 * Works under any test runner, or a plain script.
 *
 * @example
 * ```ts
 * test("my-world@1 is conformant", async () => {
 *   assertConformant(await checkEnvironment(myWorld, { seeds: [0, 1] }));
 * });
 * ```
 */
export function assertConformant(report: ConformanceReport, opts: AssertConformantOptions = {}): void {
  const failures = report.checks.filter(
    (c) => c.status === "failed" || (opts.requireAll === true && c.status === "not_checkable"),
  );
  if (failures.length > 0) throw new ConformanceError(report, failures);
}
