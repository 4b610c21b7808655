export { combineVerdicts, type VerdictPart } from "./combine-verdicts.ts";
export { deepFreeze, frozenCopy } from "./deep-freeze.ts";
export {
  delayJob,
  disableTool,
  FAULT_RULES,
  hideField,
  latency,
  loseReplyAfterCommit,
  rateLimit,
  removePath,
  staleRead,
  timeoutBeforeCommit,
  unavailable,
} from "./faults/index.ts";
export { Harness, type HarnessPlannedVariant } from "./harness.ts";
export {
  HARNESS_STACK_TYPE,
  Layer,
  type LayerInfo,
  type LayerKind,
  type SavedLayer,
  type StackState,
  saveEnvironment,
} from "./layer.ts";
export {
  type Handoff,
  type HandoffResult,
  LINK_ID,
  type LinkDeps,
  LinkLayer,
  type LinkParams,
} from "./link-layer.ts";
export {
  type Blocked,
  blocked,
  defineRule,
  isBlocked,
  matchesTool,
  type Rule,
  type RuleDefinition,
  type RuleDirectives,
  type RuleEvent,
  type RuleState,
} from "./rule.ts";
export { recordEvent, refusal, ruleState } from "./rule-hooks.ts";
export { type Restore, RuleLayer } from "./rule-layer.ts";
export {
  renderSeparation,
  type SeparationRow,
  type SeparationTrial,
  variantSeparation,
} from "./separation.ts";
export { SETUP_REPLAY_ID, SetupLayer, type SetupParams } from "./setup-layer.ts";
export { fromBaseFaults, type TaskRulesOptions, type TaskRulesState, taskRules } from "./task-rules.ts";
export { type LayerSpec, readVariant, type VariantSpec, variantId, variantLabel } from "./variant.ts";
