export {
  type McpCallResult,
  type McpTool,
  mcpCallResult,
  mcpTools,
  type ToolStep,
} from "../protocol/index.ts";
export { type BridgeCallResult, McpBridge } from "./bridge.ts";
export { type CmdAgentOptions, createCmdAgent, resolveCmdAgent } from "./cmd-agent.ts";
export { CMD_AGENT_KIND } from "./cmd-agent-kind.ts";
export { type McpHttpOptions, type McpHttpServer, serveMcpHttp } from "./http.ts";
export { createMcpServer, type McpServerOptions } from "./server.ts";
export {
  MCP_DEFAULT_WALL_TIMEOUT_MS,
  type McpTrial,
  type McpTrialOptions,
  parseTaskId,
  startMcpTrial,
} from "./trial.ts";
