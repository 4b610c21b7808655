export type { FakeModel, FakeReply, FakeReplyCall, FakeRequest, FakeTurn } from "./conversation.ts";
export { approxTokens, callHistory, firstUserText } from "./conversation.ts";
export type { FaultPlan, FaultRule } from "./faults.ts";
export type { MalformedKind } from "./models.ts";
export { INJECTED_CALL_PREFIX, malformedReply, policyModel, sequenceModel, withMalformed } from "./models.ts";
export type { FakeScriptFile, LoadedScript } from "./script.ts";
export { loadFakeScript, policyModelByName } from "./script.ts";
export type { FakeLlmServer, FakeLlmServerOptions, FakeServerStats } from "./server.ts";
export { startFakeLlmServer } from "./server.ts";
