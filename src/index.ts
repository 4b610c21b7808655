/** Proving Ground: the library API. Everything the CLI does is a function call. */

/** zod, as the gym uses it: tool inputs and rule params are zod schemas. */
export { z } from "zod";
export type { AgentKind, ResolveAgent, ResolvedAgent } from "./agents/index.ts";
export { AgentResolver, loadModuleAgent } from "./agents/index.ts";
export { defaultConfig as llmConfig } from "./agents/llm/config.ts";
export { startFakeLlmServer } from "./agents/llm/fake/index.ts";
export { createLlmAgent, PriceTable } from "./agents/llm/index.ts";
export { auditCustomerSimulator, formatSimulatorAudit } from "./audit/index.ts";
export type {
  Action,
  Agent,
  AgentAction,
  AgentSession,
  Budget,
  Environment,
  EpisodeInfo,
  ErrorCode,
  Fault,
  JsonObject,
  JsonValue,
  Observation,
  Outcome,
  StepRecord,
  StepResult,
  Task,
  ToolDescriptor,
  ToolResult,
  ToolWorldDefinition,
  ToolWorldState,
  TrialRecord,
  TrialSpec,
  Verdict,
  Violation,
  WorldDefinition,
  WorldToolContext,
} from "./core/index.ts";
export {
  canonicalJson,
  defineTool,
  EffectLog,
  ERROR_CATALOGUE,
  hashJson,
  OUTCOMES,
  ProvingError,
  parseToolArgs,
  Registry,
  Rng,
  Scheduler,
  TOOL_ERRORS,
  ToolWorld,
  toolDescriptor,
  toolError,
  VirtualClock,
  WIRE_ERRORS,
} from "./core/index.ts";
export { customerPrompt, llmCustomer } from "./customers/index.ts";
export type { GymDescription, GymParts, GymPlugin } from "./gym/index.ts";
export { BUILTIN_AGENT_KINDS, BUILTIN_WORLDS, createGym, defaultGym, Gym, loadGym } from "./gym/index.ts";
export type { LayerSpec, Rule, VariantSpec } from "./harness/index.ts";
export {
  blocked,
  defineRule,
  FAULT_RULES,
  Harness,
  Layer,
  LinkLayer,
  RuleLayer,
  SetupLayer,
  variantId,
} from "./harness/index.ts";
export { createCmdAgent, McpBridge, serveMcpHttp, startMcpTrial } from "./mcp/index.ts";
export { compareExperiments } from "./report/compare.ts";
export { buildHtmlReport, writeHtmlReport } from "./report/html/index.ts";
export type { CellSummary, ExperimentSummary } from "./report/index.ts";
export {
  renderTerminalReport,
  renderTrajectory,
  summarizeExperiment,
  summarizeTrial,
} from "./report/index.ts";
export type { ExperimentConfig, ExperimentResult, RunOptions } from "./runner/index.ts";
export {
  parseExperiment,
  replayTrial,
  resumeExperiment,
  runExperiment,
  runTrial,
} from "./runner/index.ts";
export {
  connectForeign,
  connectRemote,
  ForeignEnvironment,
  RemoteEnvironment,
  ServeClient,
  startServer,
  WsEpisodeClient,
} from "./serve/index.ts";
export {
  comparePaired,
  mcnemarExact,
  pairedBootstrap,
  passAtK,
  passHatK,
  sampleSizeForDifference,
  wilson,
} from "./stats/index.ts";
export type { Store, TrialSummary } from "./store/index.ts";
export { DEFAULT_STORE_PATH, openStore, TrialWriter } from "./store/index.ts";
export { runSelftest } from "./testing/selftest.ts";
export { deviceSupport, deviceSupportV2, deviceSupportV2World } from "./worlds/device-support/index.ts";
export type { SimpleWorldContext, SimpleWorldOptions } from "./worlds/index.ts";
export {
  BUILTIN_HANDOFFS,
  defineToolWorld,
  orderOps,
  scriptPolicy,
  supportOrders,
} from "./worlds/index.ts";
export { type CustomerSimulator, PERSONAS, scriptedCustomer } from "./worlds/shared/index.ts";
