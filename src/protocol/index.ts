/**
 * The one tool protocol: how a world's tools and the results of its tool calls look to whoever acts
 * on them from outside. MCP (`tools/list` entries, `tools/call` results: both `proving serve`'s
 * `/mcp` and `proving mcp` answer with these, so a world looks the same on either), OpenEnv's MCP-mode
 * step observations, and the tool shapes of model providers (OpenAI, Anthropic, the AI SDK). Plain
 * data in, plain JSON out: no transport, no SDK.
 */
export { afterEndResult } from "./after-end-result.ts";
export { JSON_RPC, type JsonRpcId, type JsonRpcResponse } from "./json-rpc.ts";
export { type McpCallResult, mcpCallResult } from "./mcp-call-result.ts";
export { type McpTool, mcpTool, mcpTools } from "./mcp-tool.ts";
export {
  openEnvCallToolObservation,
  openEnvResetObservation,
  openEnvToolList,
  worldResetObservation,
} from "./openenv-observations.ts";
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
