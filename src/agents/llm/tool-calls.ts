/**
 * Tools for the model (from the world's JSON Schemas, with no `execute`: the SDK never runs a tool,
 * the gym does, as environment steps) and the mapping of the model's tool calls to gym actions.
 *
 * Malformed output never crashes a trial: it becomes an action whose call the environment rejects,
 * so the trajectory records what the model did and the model reads an error observation:
 * - unknown tool name: the action names that tool (the environment answers "unknown tool");
 * - arguments that are not JSON, or not a JSON object: the action carries
 *   `{"$invalid_arguments": raw}` under the tool's name when its schema forbids extra properties
 *   (so validation rejects it), else it is sent to the tool `$malformed_call`, which no world has.
 */
import type { ToolDescriptor } from "../../core/contracts.ts";
import type { JsonObject, JsonValue } from "../../core/json.ts";
import { functionTool } from "../../protocol/provider-tools.ts";
import type { FunctionTool } from "./provider.ts";

/** A tool name no world can have (providers only accept `[a-zA-Z0-9_-]` in tool names). */
export const MALFORMED_TOOL = "$malformed_call";
export const INVALID_ARGUMENTS_KEY = "$invalid_arguments";

export type MalformedKind = "unknown_tool" | "invalid_json" | "non_object_arguments" | "missing_tool_name";

/** A tool call of a reply, as the model made it. */
export interface ReplyToolCall {
  id: string;
  name: string;
  /** The parsed arguments, or the raw text when they were not valid JSON (`problem: invalid_json`). */
  input: JsonValue;
  problem?: "unknown_tool" | "invalid_json";
  detail?: string;
}

export interface MappedCall {
  tool: string;
  args: JsonObject;
  /** What the assistant message records as the call's input (providers need an object). */
  historyInput: JsonObject;
  malformed?: { kind: MalformedKind; detail: string };
}

const toolLists = new WeakMap<readonly ToolDescriptor[], FunctionTool[]>();

/** The provider-level tool list of a world's tools (cached per tool list); no tool has an `execute`. */
export function functionToolsFor(tools: readonly ToolDescriptor[]): FunctionTool[] {
  let list = toolLists.get(tools);
  if (!list) {
    list = tools.map(functionTool) as FunctionTool[];
    toolLists.set(tools, list);
  }
  return list;
}

/** Reads a raw tool call from the provider (arguments as JSON text) against the tools offered. */
export function parseToolCall(
  raw: { toolCallId: string; toolName: string; input: string },
  offered: ReadonlySet<string>,
): ReplyToolCall {
  const call: ReplyToolCall = { id: raw.toolCallId, name: raw.toolName, input: raw.input };
  if (raw.input.trim() === "") call.input = {};
  else {
    try {
      call.input = JSON.parse(raw.input) as JsonValue;
    } catch (err) {
      call.problem = "invalid_json";
      call.detail = err instanceof Error ? err.message : String(err);
    }
  }
  if (call.problem === undefined && !offered.has(raw.toolName)) call.problem = "unknown_tool";
  return call;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function rejected(
  call: ReplyToolCall,
  descriptor: ToolDescriptor | undefined,
  kind: MalformedKind,
  detail: string,
): MappedCall {
  const raw = typeof call.input === "string" ? call.input : JSON.stringify(call.input);
  const strict = descriptor?.input_schema.additionalProperties === false;
  return strict
    ? {
        tool: call.name,
        args: { [INVALID_ARGUMENTS_KEY]: raw },
        historyInput: {},
        malformed: { kind, detail },
      }
    : {
        tool: MALFORMED_TOOL,
        args: { tool: call.name, [INVALID_ARGUMENTS_KEY]: raw },
        historyInput: {},
        malformed: { kind, detail },
      };
}

/** Maps one tool call of the model to the action the gym takes. */
export function mapToolCall(call: ReplyToolCall, tools: ReadonlyMap<string, ToolDescriptor>): MappedCall {
  if (call.name.trim() === "") {
    return {
      tool: MALFORMED_TOOL,
      args: { tool: call.name, arguments: call.input },
      historyInput: isObject(call.input) ? call.input : {},
      malformed: { kind: "missing_tool_name", detail: "the tool call has no tool name" },
    };
  }
  const descriptor = tools.get(call.name);
  if (!descriptor || call.problem === "unknown_tool") {
    const args = isObject(call.input) ? call.input : { [INVALID_ARGUMENTS_KEY]: call.input };
    return {
      tool: call.name,
      args,
      historyInput: isObject(call.input) ? call.input : {},
      malformed: { kind: "unknown_tool", detail: `the model called an unknown tool "${call.name}"` },
    };
  }
  if (call.problem === "invalid_json") {
    return rejected(
      call,
      descriptor,
      "invalid_json",
      `the arguments are not valid JSON: ${call.detail ?? ""}`,
    );
  }
  if (!isObject(call.input)) {
    return rejected(call, descriptor, "non_object_arguments", "the arguments are not a JSON object");
  }
  return { tool: call.name, args: call.input, historyInput: call.input };
}
