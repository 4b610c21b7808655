/**
 * Prompt templates of the LLM agent: `{{name}}` placeholders, checked when the agent is configured,
 * recorded verbatim in the trial's agent config.
 */
import { configError } from "../../core/errors.ts";

export interface PromptTemplates {
  /** System prompt. Placeholders: world, tools. */
  system: string;
  /** First user message. Placeholders: instruction, context (JSON), world, episode_id (task_id: the same opaque id), tools. */
  instruction: string;
  /** What the model reads for a tool result. Placeholders: result (JSON), tool, call_id, now. */
  toolResult: string;
  /** Sent when a reply has no tool call. Placeholders: tools. */
  noToolCall: string;
}

export const TEMPLATE_VARIABLES: Record<keyof PromptTemplates, readonly string[]> = {
  system: ["world", "tools"],
  instruction: ["instruction", "context", "world", "episode_id", "task_id", "tools"],
  toolResult: ["result", "tool", "call_id", "now"],
  noToolCall: ["tools"],
};

export const DEFAULT_TEMPLATES: PromptTemplates = {
  system:
    "You are an agent working in a simulated environment ({{world}}). You act only by calling tools, " +
    "and every tool call is a real action with consequences. Read each tool result before acting again: " +
    'a failed call returns {"ok": false, "error": {...}}, and a call that timed out may or may not have ' +
    "taken effect. Never claim something happened unless a tool result confirms it. When the task is " +
    "finished, call the tool that closes it.",
  instruction: "{{instruction}}\n\nContext: {{context}}",
  toolResult: "{{result}}",
  noToolCall:
    "Reply with a tool call (available tools: {{tools}}). Text alone does nothing in this environment.",
};

const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}/g;

/** Throws a config error naming an unknown placeholder. */
export function checkTemplate(which: keyof PromptTemplates, text: string): void {
  const allowed = TEMPLATE_VARIABLES[which];
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (!allowed.includes(m[1])) {
      throw configError(
        "bad_template",
        `${which} template: unknown placeholder {{${m[1]}}} (allowed: ${allowed.map((v) => `{{${v}}}`).join(", ")})`,
      );
    }
  }
}

export function renderTemplate(text: string, vars: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => vars[name] ?? whole);
}
