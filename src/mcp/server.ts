import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolDescriptor } from "../core/contracts.ts";
import { mcpCallResult } from "../protocol/mcp-call-result.ts";
import { mcpTools } from "../protocol/mcp-tool.ts";
import { readToolCall } from "../protocol/tool-call.ts";
import type { McpBridge } from "./bridge.ts";

export interface McpServerOptions {
  /** Server name shown to clients (default `proving-ground`). */
  name?: string;
  version?: string;
  /** The task's instruction: what the agent must do (it names the case id). */
  instructions: string;
  tools: readonly ToolDescriptor[];
}

/**
 * An MCP server (official SDK, low-level `Server`: the world's tools come as JSON Schema) that
 * exposes one trial's tools and forwards every call to the bridge. Tools and results are
 * `src/protocol`'s, the same as `proving serve`'s `/mcp`. Connect it to any transport.
 */
export function createMcpServer(bridge: McpBridge, opts: McpServerOptions): Server {
  const server = new Server(
    { name: opts.name ?? "proving-ground", version: opts.version ?? "0.1.0" },
    { capabilities: { tools: {} }, instructions: opts.instructions },
  );
  const tools = mcpTools(opts.tools);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const call = readToolCall(request.params, opts.tools);
    if ("problem" in call) throw new McpError(ErrorCode.InvalidParams, call.problem);
    return mcpCallResult(await bridge.callTool(call.name, call.args));
  });
  return server;
}
