/**
 * The one checker, usable from any test runner (it does not depend on one): `checkEnvironment(target,
 * options)` returns a report, `assertConformant(report)` throws one error listing the failures. Its
 * presets (`PRESETS`): conformance (the default), the audit (`auditEnvironment`, src/audit),
 * `runSelftest` and the curriculum's quality gate (`gateEpisodes`). The reference agents (the one
 * null agent, random, middling) and the one judgement of a policy's promise (`brokenPromise`) live here.
 */
export { type AssertConformantOptions, assertConformant, ConformanceError } from "./assert-conformant.ts";
export { checkEnvironment } from "./check-environment.ts";
export {
  type Broken,
  brokenPromise,
  type Expectation,
  type Failing,
  type Played,
  SOLVES,
  SOLVES_NOTHING,
} from "./expectations.ts";
export { type GateOutcome, gateEpisodes } from "./gate.ts";
export type { CheckOptions, CheckTarget, ExpectedFailure, RestoreWith } from "./options.ts";
export { PRESETS, type Preset, type PresetAgent } from "./presets.ts";
export {
  blindSubmitAgent,
  KEYWORD_NULL_AGENT,
  KEYWORD_STUFFING,
  middlingAgent,
  NULL_AGENT,
  nullAgent,
  randomAgent,
} from "./reference-agents.ts";
export {
  AGENT_CHECK_KINDS,
  CHECK_KINDS,
  type CheckKind,
  type CheckResult,
  type CheckStatus,
  type ConformanceReport,
  type DeclaredCapabilities,
  formatReport,
} from "./report.ts";
export { runSelftest, type SelftestCell, type SelftestOptions, type SelftestResult } from "./selftest.ts";
