export {
  type AdmissibleSpec,
  type ArgSource,
  admissibleCalls,
  canonicalAdmissible,
  DEFAULT_WAITS,
  FRESH_KEY_PREFIX,
  freshKey,
  inAdmissible,
  waitDurations,
} from "./admissible-actions.ts";
export { type AdmissibleDeclaration, AdmissibleToolWorld, seenInToolWorld } from "./admissible-tool-world.ts";
export { assembleTask, type TaskParts } from "./assemble-task.ts";
export {
  type CustomerFacts,
  type CustomerProfile,
  type CustomerReply,
  type CustomerSimulator,
  type CustomerTurn,
  FACT_KEYS,
  type FactKey,
  type MessageIntent,
  noActs,
  PERSONAS,
  type Persona,
  profileJson,
  type ReplyActs,
  type ThreadMessage,
} from "./customer-simulator.ts";
export {
  defineToolWorld,
  type SimpleWorldContext,
  type SimpleWorldOptions,
  type SimpleWorldState,
} from "./define-tool-world.ts";
export {
  drawFrom,
  latencyFor,
  type Range,
  type RateLimit,
  rateLimitFor,
  transientUnavailableFor,
} from "./difficulty-ranges.ts";
export { idArg, notFound } from "./entity-id.ts";
export { type ServiceFaultParams, serviceFaultDispatch, serviceFaultRules } from "./fault-rules.ts";
export { actsOfText, mentions, normalizeText, readIntent } from "./message-intent.ts";
export { personName, streetLine } from "./names.ts";
export { reconcileWrite, type UnconfirmedWrite } from "./reconcile-write.ts";
export {
  callWithRetry,
  isOk,
  type OkResult,
  type Script,
  ScriptSession,
  scriptPolicy,
} from "./script-policy.ts";
export { scriptedCustomer, scriptedReply } from "./scripted-customer.ts";
export { type SeenCall, type SeenScalar, SeenValues, type TextExtractor } from "./seen-values.ts";
export { closeTool, escalateTool, type Subject, sendMessageTool } from "./subject-tools.ts";
export { checkOverrides, findFamily, numberParam, rateLimitParam, readTaskRequest } from "./task-request.ts";
export { pad, uniqueIds } from "./unique-ids.ts";
export { waitTool } from "./wait-tool.ts";
