/**
 * The conformance checker every world passes, usable from any test runner (it does not depend on
 * one): `checkEnvironment(target, options)` returns a report, `assertConformant(report)` throws one
 * error listing the failures.
 */
export { type AssertConformantOptions, assertConformant, ConformanceError } from "./assert-conformant.ts";
export { checkEnvironment } from "./check-environment.ts";
export type { CheckOptions, CheckTarget, ExpectedFailure, RestoreWith } from "./options.ts";
export {
  CHECK_KINDS,
  type CheckKind,
  type CheckResult,
  type CheckStatus,
  type ConformanceReport,
  type DeclaredCapabilities,
  formatReport,
} from "./report.ts";
