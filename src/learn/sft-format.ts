/**
 * The SFT export: one conversation per trial, as chat fine-tuning reads it. Dialect `openai` is the
 * OpenAI chat fine-tuning line (`{messages, tools}`, arguments as JSON strings, tool messages by
 * `tool_call_id`, replayed setup steps `weight: 0`); dialect `trl` is what Hugging Face TRL's
 * SFTTrainer and chat templates take (`{messages, tools}`, arguments as objects, tool messages with
 * `name`). Parallel tool calls share one assistant message; tool errors are the tool messages the
 * agent read. `sftSteps` reads a line back into (tool, args, callId, result) per step.
 */
import type { ToolResult, TrialRecord } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import {
  type ChatMessage,
  type ChatOptions,
  type ChatTool,
  chatTools,
  promptMessages,
  stepMessages,
  trialTools,
} from "./chat-messages.ts";

export type SftDialect = "openai" | "trl";

export interface SftLine {
  messages: ChatMessage[];
  tools: ChatTool[];
}

/** How a dialect writes steps: `openai` arguments as JSON strings with weights, `trl` as objects with tool names. */
export function dialectOptions(dialect: SftDialect): ChatOptions {
  return dialect === "openai" ? { args: "string", weights: true } : { args: "object", toolNames: true };
}

export function sftLine(record: TrialRecord, dialect: SftDialect = "openai"): SftLine {
  return {
    messages: [...promptMessages(record), ...stepMessages(record.steps, dialectOptions(dialect))],
    tools: chatTools(trialTools(record)),
  };
}

/** One step as an SFT line holds it. */
export interface SftStep {
  tool: string;
  args: JsonObject;
  callId: string;
  result: ToolResult | JsonObject;
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
      out.push({
        tool: call.function.name,
        args: typeof args === "string" ? (JSON.parse(args) as JsonObject) : args,
        callId: call.id,
        result: results.get(call.id) ?? {},
        turn,
      });
    }
  });
  return out;
}
