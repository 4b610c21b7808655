/**
 * A trial's trajectory as chat messages (the conversation a tool-calling model would have had): a
 * system prompt, the task as the first user message, then assistant turns with tool calls and the
 * tool results. Consecutive actions an LLM agent took from one reply (`meta.batchSize`) share one
 * assistant turn (parallel tool calls); a failed tool call's result is the `{ok:false, error}` the
 * agent observed, verbatim. Steps a Setup layer replayed (`setup: true`) are never assistant turns:
 * the agent did not take them, it read them in the task's context (`context.setup`, when the layer
 * discloses them), and that is where the prompt has them.
 */

import { DEFAULT_TEMPLATES, renderTemplate } from "../agents/llm/templates.ts";
import type { StepRecord, TaskObservation, ToolDescriptor, TrialRecord } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";

/** How tool-call arguments are written: a JSON string (OpenAI) or an object (TRL chat templates). */
export type ArgumentsStyle = "string" | "object";

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string | JsonObject };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content?: string | null; tool_calls: ChatToolCall[]; weight?: 0 | 1 }
  | { role: "tool"; tool_call_id: string; content: string; name?: string };

/** A tool in the `tools` list of chat requests and fine-tuning lines. */
export interface ChatTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonObject };
}

export interface ChatOptions {
  args?: ArgumentsStyle;
  /** Add `name` to tool messages (TRL chat templates read it). */
  toolNames?: boolean;
}

export type AssistantMessage = Extract<ChatMessage, { role: "assistant" }>;
export type ToolMessage = Extract<ChatMessage, { role: "tool" }>;

/** One assistant turn: its tool calls (one reply) and the tool messages that answered them. */
export interface ChatTurn {
  assistant: AssistantMessage;
  results: ToolMessage[];
  steps: StepRecord[];
}

export function chatTools(tools: readonly ToolDescriptor[]): ChatTool[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.input_schema },
  }));
}

/** The tools the agent was offered (from the first observation). */
export function trialTools(record: TrialRecord): ToolDescriptor[] {
  return record.initial?.kind === "task" ? record.initial.tools : [];
}

function templateOf(record: TrialRecord, key: string, fallback: string): string {
  const value = record.spec.agent.config?.[key];
  return typeof value === "string" ? value : fallback;
}

/** The system prompt and first user message: the agent's own templates when it was an LLM, else the defaults. */
export function promptMessages(record: TrialRecord): ChatMessage[] {
  const task = record.initial as TaskObservation | undefined;
  const tools = trialTools(record)
    .map((t) => t.name)
    .join(", ");
  const system = renderTemplate(templateOf(record, "systemPrompt", DEFAULT_TEMPLATES.system), {
    world: record.spec.world,
    tools,
  });
  const user = renderTemplate(templateOf(record, "instructionTemplate", DEFAULT_TEMPLATES.instruction), {
    instruction: task?.instruction ?? record.task.instruction,
    context: JSON.stringify(task?.context ?? {}),
    world: record.spec.world,
    episode_id: "episode",
    task_id: "episode",
    tools,
  });
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

/** The steps the agent took: a Setup layer's replayed steps left out (they are the prompt's). */
export function agentSteps(steps: readonly StepRecord[]): StepRecord[] {
  return steps.filter((s) => !s.setup);
}

/** Groups the agent's steps into turns: one per action, or one per LLM reply with several tool calls. */
export function turnsOf(steps: readonly StepRecord[]): StepRecord[][] {
  const turns: StepRecord[][] = [];
  for (const step of agentSteps(steps)) {
    const index = step.meta?.batchIndex;
    const last = turns[turns.length - 1];
    if (typeof index === "number" && index > 0 && last) last.push(step);
    else turns.push([step]);
  }
  return turns;
}

/** What the agent read for a tool result: the result JSON (errors included, verbatim). */
export function toolContent(step: StepRecord): string {
  const obs = step.observation;
  return JSON.stringify(obs.kind === "tool_result" ? obs.result : obs);
}

/** The agent's turns of a list of steps, as chat messages (setup steps left out). */
export function chatTurns(steps: readonly StepRecord[], options: ChatOptions = {}): ChatTurn[] {
  return turnsOf(steps).map((turn) => ({
    assistant: {
      role: "assistant",
      content: null,
      tool_calls: turn.map((s) => ({
        id: s.action.callId,
        type: "function",
        function: {
          name: s.action.tool,
          arguments: options.args === "object" ? s.action.args : JSON.stringify(s.action.args),
        },
      })),
    },
    results: turn.map((s) => ({
      role: "tool",
      tool_call_id: s.action.callId,
      content: toolContent(s),
      ...(options.toolNames ? { name: s.action.tool } : {}),
    })),
    steps: turn,
  }));
}

/**
 * The assistant and tool messages of turns. `endOnAssistant` leaves out the tool messages after the
 * last assistant turn (what the environment answered to the final decision: nothing to learn from).
 */
export function turnMessages(turns: readonly ChatTurn[], endOnAssistant = false): ChatMessage[] {
  const out: ChatMessage[] = [];
  turns.forEach((turn, i) => {
    out.push(turn.assistant);
    if (!(endOnAssistant && i === turns.length - 1)) out.push(...turn.results);
  });
  return out;
}

/** The assistant and tool messages of a list of steps (every result included; setup steps left out). */
export function stepMessages(steps: readonly StepRecord[], options: ChatOptions = {}): ChatMessage[] {
  return turnMessages(chatTurns(steps, options));
}
