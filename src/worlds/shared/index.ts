export { assembleTask, type TaskParts } from "./assemble-task.ts";
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
export { closeTool, escalateTool, type Subject, sendMessageTool } from "./subject-tools.ts";
export { checkOverrides, findFamily, numberParam, rateLimitParam, readTaskRequest } from "./task-request.ts";
export { pad, uniqueIds } from "./unique-ids.ts";
export { waitTool } from "./wait-tool.ts";
