/**
 * The SFT export: one conversation per trial, as chat fine-tuning reads it. Dialect `openai` is the
 * OpenAI chat fine-tuning line (`{messages, tools}`, arguments as JSON strings, tool messages by
 * `tool_call_id`); dialect `trl` is what Hugging Face TRL's SFTTrainer and chat templates take
 * (`{messages, tools}`, arguments as objects, tool messages with `name`). Every line ends on the last
 * assistant turn: the tool messages that answered the final decision are left out (OpenAI trains the
 * assistant messages and reads the last one as the completion; what the environment answered last
 * teaches nothing). Setup steps are in the prompt, never an assistant turn (see chat-messages.ts).
 * Parallel tool calls share one assistant message; tool errors are the tool messages the agent read.
 * `sftSteps` reads a line back into (tool, args, callId, result) per step.
 */
import type { ToolResult, TrialRecord } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import {
  type ArgumentsStyle,
  type ChatMessage,
  type ChatOptions,
  type ChatTool,
  chatTools,
  chatTurns,
  promptMessages,
  trialTools,
  turnMessages,
} from "./chat-messages.ts";

/** The chat dialects of the SFT and preference exports. */
export type SftDialect = "openai" | "trl";
export const SFT_DIALECTS: readonly SftDialect[] = ["openai", "trl"];

/**
 * How nested JSON is written: tool-call `arguments` and the `tools` list, each as JSON text
 * (`string`) or as JSON values (`object`). Defaults: arguments as the dialect has them (openai
 * strings, trl objects), tools as objects. Chat templates that `tojson` the arguments (Qwen2.5,
 * Llama 3.1) need objects; a datasets/Arrow column of differently shaped objects may need strings.
 */
export interface ChatEncoding {
  args?: ArgumentsStyle;
  tools?: ArgumentsStyle;
}

export interface SftLine {
  messages: ChatMessage[];
  /** A list of tools, or its JSON text under `tools: "string"`. */
  tools: ChatTool[] | string;
}

/** How a dialect writes steps: `openai` arguments as JSON strings, `trl` as objects with tool names. */
export function dialectOptions(dialect: SftDialect, encoding: ChatEncoding = {}): ChatOptions {
  const args = encoding.args ?? (dialect === "openai" ? "string" : "object");
  return dialect === "openai" ? { args } : { args, toolNames: true };
}

/** The tools the agent was offered, as a list or as its JSON text. */
export function encodedTools(record: TrialRecord, style: ArgumentsStyle = "object"): ChatTool[] | string {
  const tools = chatTools(trialTools(record));
  return style === "string" ? JSON.stringify(tools) : tools;
}

export function sftLine(
  record: TrialRecord,
  dialect: SftDialect = "openai",
  encoding: ChatEncoding = {},
): SftLine {
  const turns = chatTurns(record.steps, dialectOptions(dialect, encoding));
  return {
    messages: [...promptMessages(record), ...turnMessages(turns, true)],
    tools: encodedTools(record, encoding.tools),
  };
}

/** One step as an SFT line holds it. */
export interface SftStep {
  tool: string;
  args: JsonObject;
  callId: string;
  /** What the tool answered; absent for the last turn's calls (the line ends on that assistant turn). */
  result?: ToolResult | JsonObject;
  /** Index of the assistant message (steps of one parallel reply share it). */
  turn: number;
}

/** Reads the tool calls and their results back out of an SFT line, in order. */
export function sftSteps(line: SftLine): SftStep[] {
  const results = new Map<string, JsonObject>();
  for (const m of line.messages) if (m.role === "tool") results.set(m.tool_call_id, JSON.parse(m.content));
  const out: SftStep[] = [];
  line.messages.forEach((m, turn) => {
    if (m.role !== "assistant") return;
    for (const call of m.tool_calls) {
      const args = call.function.arguments;
      const result = results.get(call.id);
      out.push({
        tool: call.function.name,
        args: typeof args === "string" ? (JSON.parse(args) as JsonObject) : args,
        callId: call.id,
        ...(result ? { result } : {}),
        turn,
      });
    }
  });
  return out;
}
