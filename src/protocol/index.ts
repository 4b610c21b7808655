export { afterEndResult } from "./after-end-result.ts";
export { JSON_RPC, type JsonRpcId, type JsonRpcResponse } from "./json-rpc.ts";
export { type McpCallResult, mcpCallResult } from "./mcp-call-result.ts";
export { type McpTool, mcpTool, mcpTools } from "./mcp-tool.ts";
export { openEnvCallToolObservation, openEnvToolList } from "./openenv-observations.ts";
export {
  type AnthropicTool,
  anthropicTool,
  type FunctionTool,
  functionTool,
  type OpenAiTool,
  openAiTool,
} from "./provider-tools.ts";
export { readToolCall, type ToolCall } from "./tool-call.ts";
export type { EpisodeEndNote, ToolStep } from "./tool-step.ts";
