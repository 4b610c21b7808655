/**
 * A world's tool in a model provider's shape: what an agent offers a model. The schema is the world's
 * own JSON Schema, unchanged; no tool carries an `execute` (the gym runs tools, as environment steps).
 */
import type { ToolDescriptor } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";

/** OpenAI chat completions (and every compatible server): `{type: "function", function: {name, description, parameters}}`. */
export interface OpenAiTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonObject };
}

/** Anthropic messages: `{name, description, input_schema}`. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonObject;
}

/** The AI SDK's provider-level function tool (`LanguageModelV3FunctionTool`), which its OpenAI and Anthropic providers send as the two shapes above. */
export interface FunctionTool {
  type: "function";
  name: string;
  description: string;
  inputSchema: JsonObject;
}

export function openAiTool(tool: ToolDescriptor): OpenAiTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
  };
}

export function anthropicTool(tool: ToolDescriptor): AnthropicTool {
  return { name: tool.name, description: tool.description, input_schema: tool.input_schema };
}

export function functionTool(tool: ToolDescriptor): FunctionTool {
  return { type: "function", name: tool.name, description: tool.description, inputSchema: tool.input_schema };
}
