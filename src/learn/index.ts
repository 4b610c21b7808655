/**
 * Learning from the gym: training exports (SFT, rollouts, preference pairs, with their JSON Schemas
 * and the training filter), the skill bank (skills with provenance, BM25 or embedding retrieval, JSON
 * file), the rule and LLM inducers, how an agent takes skills (LLM agents in the prompt, others in
 * `context.skills`), the `demo-directives` plumbing demo, and the learn loop behind `proving learn`.
 */

export type {
  ArmAgentContext,
  ArmAgentFactory,
  ArmAgentRequest,
  ArmAgents,
  SkillChannel,
} from "./arm-agent.ts";
export { armAgents } from "./arm-agent.ts";
export { BM25_DEFAULTS, Bm25Index } from "./bm25.ts";
export type {
  ArgumentsStyle,
  AssistantMessage,
  ChatMessage,
  ChatTool,
  ChatToolCall,
  ChatTurn,
  ToolMessage,
} from "./chat-messages.ts";
export { chatTools, chatTurns, promptMessages, stepMessages, turnMessages } from "./chat-messages.ts";
export { contextSkillsAgent } from "./context-skills-agent.ts";
export type { DemoDirectives } from "./demo-directives-agent.ts";
export {
  DEMO_AGENT,
  DEMO_WORLD,
  demoDirectivesAgent,
  directivesOfText,
  resolvedDemoAgent,
} from "./demo-directives-agent.ts";
export type { Embedder, ProviderEmbedderOptions } from "./embedder.ts";
export { providerEmbedder } from "./embedder.ts";
export {
  EXPORT_SCHEMAS,
  PREFERENCE_OPENAI_SCHEMA,
  PREFERENCE_SCHEMA,
  ROLLOUT_SCHEMA,
  SFT_OPENAI_SCHEMA,
  SFT_TRL_SCHEMA,
} from "./export-schemas.ts";
export type { TrainingExportOptions, TrainingExportResult, TrainingFormat } from "./export-training.ts";
export { exportTraining, TRAINING_FORMATS, trainingSink, writeTrainingLines } from "./export-training.ts";
export type { Inducer, Induction } from "./inducer.ts";
export { ruleInducer } from "./inducer.ts";
export type { LearnDeps, LearnOptions, LearnOutput } from "./learn-loop.ts";
export {
  DEFAULT_INDUCTION_SEEDS,
  defaultHeldoutFamilies,
  defaultLearnVariants,
  INDUCTION_SEED_STRIDE,
  runLearn,
} from "./learn-loop.ts";
export type {
  Arm,
  ArmComparison,
  ArmRate,
  ClusteredInterval,
  EvaluationSet,
  InductionArm,
  LearnResult,
} from "./learn-result.ts";
export { ARM_LABELS, ARMS } from "./learn-result.ts";
export type { LearnStatement } from "./learn-statement.ts";
export { learnStatement } from "./learn-statement.ts";
export { comparisonText, renderLearnText } from "./learn-text.ts";
export type { LlmInducerOptions } from "./llm-inducer.ts";
export { LLM_INDUCER_SYSTEM, llmInducer, trajectoryDigest } from "./llm-inducer.ts";
export type { ArmOfAgent, ClusteredPair, ClusterOptions } from "./paired-arms.ts";
export { clusteredDifference, compareClustered, evaluationSet } from "./paired-arms.ts";
export type {
  OpenAiPreferenceLine,
  PreferenceDecision,
  PreferenceLine,
  PreferencePair,
} from "./preference-format.ts";
export {
  preferenceDecision,
  preferenceLine,
  preferencePairs,
  REJECTED_OUTCOMES,
} from "./preference-format.ts";
export type { RetrievedSkill, RetrieveOptions } from "./retrieval.ts";
export { bm25Retrieve, retrieveByVector, retrieveSkills, withEmbeddingIndex } from "./retrieval.ts";
export type { RolloutLine, RolloutStep } from "./rollout-format.ts";
export { rolloutLine, rolloutTrajectory, VIOLATION_PENALTY } from "./rollout-format.ts";
export { induceRuleSkills, RULE_INDUCER_ID } from "./rule-inducer.ts";
export type { ChatEncoding, SftDialect, SftLine, SftStep } from "./sft-format.ts";
export { SFT_DIALECTS, sftLine, sftSteps } from "./sft-format.ts";
export type { Skill, SkillProvenance } from "./skill.ts";
export type { InductionRecord, RetrievalIndex, SkillBank } from "./skill-bank.ts";
export { bm25Bank, loadSkillBank, readSkillBank, saveSkillBank, skillDocument } from "./skill-bank.ts";
export { skillSource } from "./skill-source.ts";
export type { Exclusion, TrainingFilter } from "./training-filter.ts";
export { excludedBecause, NEVER_TRAINED_ON } from "./training-filter.ts";
