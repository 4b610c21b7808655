export { admissibleActionsOf, inspectionOf } from "./capabilities.ts";
export { VirtualClock } from "./clock.ts";
export type {
  ActContext,
  Action,
  ActionMeta,
  AdmissibleAction,
  AdmissibleActions,
  Agent,
  AgentAction,
  AgentRef,
  AgentSession,
  Budget,
  Check,
  Delivery,
  Environment,
  EnvironmentCapabilities,
  EnvSpec,
  EpisodeInfo,
  Inspection,
  IsolationCheck,
  Observation,
  Outcome,
  ReplayedStep,
  ResetOptions,
  SetupSteps,
  Split,
  StepInfo,
  StepRecord,
  StepResult,
  Task,
  TaskGenerator,
  TaskObservation,
  TaskRequest,
  TimeControl,
  ToolDescriptor,
  ToolError,
  ToolResult,
  ToolResultObservation,
  TrialIsolation,
  TrialRecord,
  TrialRecordSummary,
  TrialSpec,
  TrialStats,
  Verdict,
  Violation,
} from "./contracts.ts";
export { isInfraOutcome, MAX_ADMISSIBLE_ACTIONS, OUTCOMES } from "./contracts.ts";
export type { Effect } from "./effect-log.ts";
export { EffectLog } from "./effect-log.ts";
export { bareWorld, type EnvironmentFactory } from "./environment-factory.ts";
export type {
  CodeWithFault,
  ErrorCode,
  ErrorEntry,
  Fault,
  FaultOf,
  WireErrorCode,
  WireErrorEntry,
} from "./error-catalogue.ts";
export {
  callerFaulted,
  ERROR_CATALOGUE,
  FAULT_MEANINGS,
  FAULTS,
  faultOf,
  isErrorCode,
  isWireErrorCode,
  WIRE_ERRORS,
} from "./error-catalogue.ts";
export { renderErrorDoc } from "./error-doc.ts";
export {
  configError,
  errorMessage,
  internalError,
  ProvingError,
  type ProvingErrorOptions,
} from "./errors.ts";
export {
  CanonicalText,
  canonicalBytes,
  canonicalJson,
  canonicalOnce,
  constantArray,
  hashJson,
  hashString,
} from "./hash.ts";
export type { JsonObject, JsonValue } from "./json.ts";
export {
  importOptional,
  loadOptional,
  missingOptionalDependency,
  OPTIONAL_DEPENDENCIES,
  optionalDependencyMissing,
} from "./optional-dependency.ts";
export type { FamilyInfo, SavedEnvironment, StateFactory, WorldDefinition } from "./registry.ts";
export { Registry } from "./registry.ts";
export type { RngState } from "./rng.ts";
export { Rng } from "./rng.ts";
export type { Job, SchedulerState } from "./scheduler.ts";
export { Scheduler } from "./scheduler.ts";
export type { ToolDef } from "./tool.ts";
export { defineTool, parseToolArgs, toolDescriptor, toolError } from "./tool.ts";
export { TOOL_ERRORS, type ToolErrorCode, type ToolErrorEntry } from "./tool-error-catalogue.ts";
export type {
  DispatchRules,
  ToolWorldDefinition,
  ToolWorldState,
  TraceEntry,
  WorldToolContext,
  WorldTools,
} from "./tool-world.ts";
export { ToolWorld, toolWorldView } from "./tool-world.ts";
export { TrialEnd } from "./trial-end.ts";
export type { ManifestRows, TrialSummary } from "./trial-summary.ts";
export { manifestRows, missingSummary, summarizeTrial } from "./trial-summary.ts";
