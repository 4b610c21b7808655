/**
 * JSON Schemas (draft-07) of the export formats, written from the formats' public documentation:
 * OpenAI's chat fine-tuning format with tools (platform.openai.com, "Fine-tuning": each line
 * `{messages, tools?, parallel_tool_calls?}`; assistant `tool_calls` with `function.arguments` as a JSON
 * string; `tool` messages answer a `tool_call_id`; assistant `weight` 0 or 1), Hugging Face TRL's
 * dataset formats (huggingface.co/docs/trl/dataset_formats: conversational language modeling
 * `{messages}` with a `tools` column; tool calls' arguments as objects; conversational preference
 * with an explicit prompt `{prompt, chosen, rejected}`), and the gym's own rollout line.
 */
import type { JsonObject } from "../core/json.ts";

const text = { type: "string" };
const jsonSchemaObject = { type: "object" };

const chatTool = {
  type: "object",
  required: ["type", "function"],
  properties: {
    type: { const: "function" },
    function: {
      type: "object",
      required: ["name"],
      properties: {
        name: { type: "string", pattern: "^[a-zA-Z0-9_-]{1,64}$" },
        description: text,
        parameters: jsonSchemaObject,
      },
    },
  },
};

function toolCall(args: "string" | "object"): JsonObject {
  return {
    type: "object",
    required: ["type", "function", ...(args === "string" ? ["id"] : [])],
    additionalProperties: false,
    properties: {
      id: text,
      type: { const: "function" },
      function: {
        type: "object",
        required: ["name", "arguments"],
        additionalProperties: false,
        properties: { name: text, arguments: args === "string" ? text : { type: "object" } },
      },
    },
  };
}

function message(args: "string" | "object"): JsonObject {
  const system: JsonObject = {
    type: "object",
    required: ["role", "content"],
    additionalProperties: false,
    properties: { role: { enum: ["system", "developer", "user"] }, content: text, name: text },
  };
  const assistant: JsonObject = {
    type: "object",
    required: ["role"],
    additionalProperties: false,
    anyOf: [
      { required: ["content"], properties: { content: text } },
      { required: ["tool_calls"], properties: {} },
    ],
    properties: {
      role: { const: "assistant" },
      content: { type: ["string", "null"] },
      tool_calls: { type: "array", minItems: 1, items: toolCall(args) },
      ...(args === "string" ? { weight: { enum: [0, 1] } } : {}),
    },
  };
  const tool: JsonObject = {
    type: "object",
    required: args === "string" ? ["role", "tool_call_id", "content"] : ["role", "content"],
    additionalProperties: false,
    properties: { role: { const: "tool" }, tool_call_id: text, content: text, name: text },
  };
  return { oneOf: [system, assistant, tool] };
}

/** OpenAI chat fine-tuning line with tools. */
export const SFT_OPENAI_SCHEMA: JsonObject = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "OpenAI chat fine-tuning line (with tools)",
  type: "object",
  required: ["messages"],
  additionalProperties: false,
  properties: {
    messages: { type: "array", minItems: 2, items: message("string") },
    tools: { type: "array", items: chatTool },
    parallel_tool_calls: { type: "boolean" },
  },
};

/** TRL conversational language-modeling line with a tools column (SFTTrainer). */
export const SFT_TRL_SCHEMA: JsonObject = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "TRL conversational SFT line (with tools)",
  type: "object",
  required: ["messages"],
  additionalProperties: false,
  properties: {
    messages: { type: "array", minItems: 2, items: message("object") },
    tools: { type: "array", items: chatTool },
  },
};

/** TRL conversational preference line with an explicit prompt (DPOTrainer, RewardTrainer). */
export const PREFERENCE_SCHEMA: JsonObject = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "TRL conversational preference line (explicit prompt, with tools)",
  type: "object",
  required: ["prompt", "chosen", "rejected"],
  additionalProperties: false,
  properties: {
    prompt: { type: "array", minItems: 1, items: message("object") },
    chosen: { type: "array", minItems: 1, items: message("object") },
    rejected: { type: "array", minItems: 1, items: message("object") },
    tools: { type: "array", items: chatTool },
  },
};

const observation = {
  type: "object",
  required: ["kind"],
  properties: { kind: { enum: ["task", "tool_result"] } },
};

/** The gym's rollout line (one trial) for RL trainers. */
export const ROLLOUT_SCHEMA: JsonObject = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "Proving Ground rollout line",
  type: "object",
  additionalProperties: false,
  required: [
    "schemaVersion",
    "format",
    "trial_id",
    "experiment_id",
    "world",
    "variant_id",
    "task_id",
    "family",
    "difficulty",
    "seed",
    "split",
    "agent",
    "tools",
    "initial_observation",
    "steps",
    "verdict",
    "outcome",
    "passed",
    "return",
  ],
  properties: {
    schemaVersion: { const: 1 },
    format: { const: "rollout" },
    trial_id: text,
    experiment_id: text,
    world: text,
    variant_id: { type: ["string", "null"] },
    task_id: text,
    family: text,
    difficulty: { type: "integer" },
    seed: { type: "integer" },
    split: { enum: ["regression", "dynamic", "heldout"] },
    agent: text,
    tools: { type: "array", items: chatTool },
    initial_observation: observation,
    steps: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: [
          "index",
          "observation",
          "action",
          "reward",
          "next_observation",
          "terminated",
          "truncated",
          "t",
          "setup",
        ],
        properties: {
          index: { type: "integer", minimum: 0 },
          observation,
          action: {
            type: "object",
            required: ["tool", "args", "callId"],
            properties: { tool: text, args: { type: "object" }, callId: text },
          },
          reward: { type: "number" },
          next_observation: observation,
          terminated: { type: "boolean" },
          truncated: { type: "boolean" },
          t: { type: "number" },
          setup: { type: "boolean" },
        },
      },
    },
    verdict: {
      oneOf: [
        { type: "null" },
        {
          type: "object",
          required: ["passed", "score", "checks", "violations", "verifier"],
          properties: { passed: { type: "boolean" }, score: { type: "number" } },
        },
      ],
    },
    outcome: {
      enum: ["passed", "failed", "violated", "budget_exhausted", "timeout", "agent_error"],
    },
    passed: { type: "boolean" },
    return: { type: "number" },
  },
};

export type ExportFormat = "records" | "sft" | "rollouts" | "preference";

export const EXPORT_SCHEMAS = {
  sft: SFT_OPENAI_SCHEMA,
  "sft-trl": SFT_TRL_SCHEMA,
  rollouts: ROLLOUT_SCHEMA,
  preference: PREFERENCE_SCHEMA,
} as const;
