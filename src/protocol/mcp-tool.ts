import type { ToolDescriptor } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";

/** A `tools/list` entry: MCP's `Tool` (`inputSchema` is the world's JSON Schema for the tool's arguments). */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonObject & { type: "object" };
}

/**
 * A world's tool as MCP lists it: name and description as the world gives them, its input schema as
 * given (MCP requires an object schema: `type: "object"` is added only to a schema that names no type).
 */
export function mcpTool(tool: ToolDescriptor): McpTool {
  const schema = tool.input_schema;
  const inputSchema = (
    schema.type === undefined ? { ...schema, type: "object" } : schema
  ) as McpTool["inputSchema"];
  return { name: tool.name, description: tool.description, inputSchema };
}

/** The `tools/list` entries of a tool list, in its order. */
export function mcpTools(tools: readonly ToolDescriptor[]): McpTool[] {
  return tools.map(mcpTool);
}
