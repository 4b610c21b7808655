import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolDescriptor } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import type { BridgeCallResult, McpBridge } from "./bridge.ts";

export interface McpServerOptions {
  /** Server name shown to clients (default `proving-ground`). */
  name?: string;
  version?: string;
  /** The task's instruction: what the agent must do (it names the case id). */
  instructions: string;
  tools: readonly ToolDescriptor[];
}

/** One MCP tool result: a single text content holding the world's JSON result (`verdict` added at the end). */
export function toCallToolResult(r: BridgeCallResult): CallToolResult {
  const payload: JsonObject = { ...(r.result as unknown as JsonObject) };
  if (r.ended) {
    payload.outcome = r.ended.outcome;
    if (r.ended.verdict) payload.verdict = r.ended.verdict as unknown as JsonObject;
  }
  return {
    content: [{ type: "text", text: JSON.stringify(payload) }],
    isError: !r.result.ok,
  };
}

function toMcpTool(t: ToolDescriptor): Tool {
  const schema = { ...t.input_schema } as JsonObject;
  if (schema.type === undefined) schema.type = "object";
  return { name: t.name, description: t.description, inputSchema: schema as Tool["inputSchema"] };
}

/**
 * An MCP server (official SDK, low-level `Server`: the world's tools come as JSON Schema) that
 * exposes one trial's tools and forwards every call to the bridge. Connect it to any transport.
 */
export function createMcpServer(bridge: McpBridge, opts: McpServerOptions): Server {
  const server = new Server(
    { name: opts.name ?? "proving-ground", version: opts.version ?? "0.1.0" },
    { capabilities: { tools: {} }, instructions: opts.instructions },
  );
  const tools = opts.tools.map(toMcpTool);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as JsonObject;
    return toCallToolResult(await bridge.callTool(request.params.name, args));
  });
  return server;
}
