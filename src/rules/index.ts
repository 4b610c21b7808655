/**
 * The `rule.generated@1` runtime: generated rule code is compiled (esbuild), run in the isolated-vm rule
 * sandbox, and its hooks' output checked. The rigger's designer writes such code; the gym runs it.
 */
export {
  type CompiledRuleCode,
  type CompileResult,
  compileRuleCode,
  ruleCodeHash,
} from "./compile-rule-code.ts";
export {
  GENERATED_RULE_ID,
  type GeneratedRuleDefinition,
  type GeneratedRuleParams,
  generatedRule,
  generatedRuleLayer,
} from "./generated-rule.ts";
export { checkHookOutput, type HookOutputCheck } from "./hook-output.ts";
export { type IsolateRuleSandboxOptions, isolateRuleSandbox } from "./isolate-rule-sandbox.ts";
export { RULE_CODE_API } from "./rule-code-api.ts";
export {
  describeRuleCodeFailure,
  REPAIR_HINTS,
  RULE_CODE_FAILURE_SCHEMA_VERSION,
  RULE_HOOKS,
  type RuleCodeFailure,
  type RuleCodeFailureKind,
  type RuleCodeLocation,
  type RuleCodeStage,
  type RuleHookName,
  ruleCodeFailure,
} from "./rule-code-failure.ts";
export type {
  LoadedRuleCode,
  RuleCodeLimits,
  RuleCodeResult,
  RuleCodeSandbox,
} from "./rule-code-sandbox.ts";
