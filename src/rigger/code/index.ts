/**
 * The designer's side of generated rule code: checking a proposal's code on sample events before it is
 * proposed, and realizing a code proposal as a `rule.generated@1` layer. The runtime is `src/rules`.
 */
export {
  type CheckRuleCodeResult,
  checkRuleCode,
  type RuleCodeSample,
  ruleCodeRealizer,
  samplesFromExcerpt,
  toCodeFailure,
} from "./check-rule-code.ts";
