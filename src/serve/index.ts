export { bearerCheck } from "./auth.ts";
export { MAX_BATCH_STEPS, MAX_GROUP_SIZE } from "./batch-protocol.ts";
export {
  type BatchResult,
  type BatchStep,
  type ClientOptions,
  type OpenedEpisodes,
  type RemoteMetadata,
  ServeClient,
  ServeClientError,
  type StepOptions,
  WsEpisodeClient,
} from "./client.ts";
export { metadataDoc, SERVE_PROTOCOL, schemaDoc } from "./describe.ts";
export {
  type ChosenTask,
  CLIENT_VIEW,
  OPERATOR_VIEW,
  resetMetadataFor,
  serverMetadataFor,
  stateFor,
  stepMetadataFor,
  type Viewer,
} from "./disclosure.ts";
export { Episode, type EpisodeDefaults, type SessionKind } from "./episode.ts";
export {
  connectForeign,
  ForeignEnvironment,
  type ForeignServer,
  type ForeignTarget,
  foreignWorld,
  isOwnServer,
  probeForeign,
  REWARD_JUDGED,
} from "./foreign-openenv.ts";
export { type GroupDoc, type GroupMemberDoc, GroupRegistry } from "./groups.ts";
export { createHttpApp, type HttpAppDeps } from "./http-app.ts";
export {
  type EpisodeStateDoc,
  parseAction,
  parseJsonText,
  parseResetParams,
  parseStepParams,
  parseWsMessage,
  type ResetParams,
  SERVE_ERROR_CODES,
  ServeError,
  type ServeErrorCode,
  type StepEnvelope,
  type StepParams,
  type WireAction,
  type WsClientMessage,
  type WsServerMessage,
} from "./protocol.ts";
export {
  connectRemote,
  limitsFromMetadata,
  RemoteEnvironment,
  type RemoteEnvironmentOptions,
  type RemoteLimits,
  type RemoteTarget,
  specFromMetadata,
} from "./remote-environment.ts";
export type { ServeRecordOptions, ServeTransport } from "./served-run.ts";
export {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_PORT,
  type RunningServer,
  type ServeOptions,
  startServer,
} from "./server.ts";
export {
  DEFAULT_EVICT_AFTER_MS,
  DEFAULT_HTTP_IDLE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_SESSIONS,
  EVICTED,
  type SessionCounts,
  type SessionLimits,
  SessionManager,
} from "./sessions.ts";
export {
  resolveTarget,
  type ServeTarget,
  type VariantEnvironment,
  type VariantEnvironmentFactory,
  worldTarget,
} from "./target.ts";
export { drawTask, type SourcedTask, type TaskSource } from "./task-source.ts";
export { attachWebSocket, WS_CLOSE, type WsEndpoint, type WsEndpointDeps } from "./ws-endpoint.ts";
export { DEFAULT_WS_FLOW, type WsFlowLimits, type WsFlowStats } from "./ws-flow.ts";
