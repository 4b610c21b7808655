/** The rigger: from failed trajectories to validated environment variants (issue 13). */
export {
  buildDesignerInput,
  type DesignerInputSource,
  LAYER_RULE_API,
  RIGGER_PROHIBITIONS,
  shapeOf,
  trajectoryExcerpt,
} from "./designer-input.ts";
export { type DiagnoseOptions, detectContext, diagnose } from "./diagnose.ts";
export {
  AXES,
  type CataloguePattern,
  type DiagnoserCall,
  type DiagnoserInput,
  type DroppedClaim,
  diagnoserSystemPrompt,
  diagnoserTaskPrompt,
  diagnosisTrials,
  type LlmDiagnoser,
  type LlmDiagnoserOptions,
  type LlmDiagnosisRecord,
  llmDiagnoser,
  llmDiagnoserFromSpec,
  validateDiagnoses,
} from "./llm-diagnoser.ts";
export { mergeDiagnoses } from "./merge-diagnoses.ts";
export {
  type DetectContext,
  gaveUp,
  ignoredError,
  linkDataLoss,
  PATTERN_DETECTORS,
  type PatternDetector,
  type PatternHit,
  retryNewKey,
  unobservedClaim,
  waitLoop,
  writeBeforePrecondition,
} from "./patterns/index.ts";
export { type KnobSearch, knobValue, refineKnob, startSearch } from "./refine-knob.ts";
export { type RigCandidate, type RigOptions, type RigResult, rig, validationTasks } from "./rig.ts";
export {
  type GymRolloutsOptions,
  gymRollouts,
  type Player,
  type RolloutRequest,
  type Rollouts,
} from "./rollouts.ts";
export { type BandPosition, type BandRule, bandPosition, DEFAULT_BAND_RULE } from "./sequential-interval.ts";
export { templateDesigner, templateProposals } from "./template-designer.ts";
export { type TraceStep, traceSteps } from "./trace-steps.ts";
export type {
  Axis,
  Candidate,
  CodeFailure,
  CodeProposal,
  CodeRealizer,
  Decision,
  Designer,
  DesignerId,
  DesignerInput,
  Diagnosis,
  Evidence,
  LayersProposal,
  Proposal,
  RateEstimate,
  RepairRequest,
  TrajectoryExcerpt,
  ValidationResult,
} from "./types.ts";
export {
  type CandidateValidation,
  DEFAULT_VALIDATION_PLAN,
  type ValidateOptions,
  type ValidationPlan,
  type ValidationTasks,
  validateCandidate,
} from "./validate-candidate.ts";
