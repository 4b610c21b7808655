/**
 * JSON Schemas (draft-07) of the export formats, written from the formats' public documentation:
 * OpenAI's chat fine-tuning format with tools (platform.openai.com, "Fine-tuning": each line
 * `{messages, tools?, parallel_tool_calls?}`; assistant `tool_calls` with `function.arguments` as a JSON
 * string; `tool` messages answer a `tool_call_id`; assistant `weight` 0 or 1), Hugging Face TRL's
 * dataset formats (huggingface.co/docs/trl/dataset_formats: conversational language modeling
 * `{messages}` with a `tools` column; tool calls' arguments as objects; conversational preference
 * with an explicit prompt `{prompt, chosen, rejected}`), OpenAI's DPO fine-tuning line
 * (platform.openai.com, "Direct preference optimization": `{input: {messages, tools?,
 * parallel_tool_calls?}, preferred_output: [assistant], non_preferred_output: [assistant]}`), and the
 * gym's own rollout line.
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

/** How a schema takes tool-call arguments: OpenAI's JSON text, TRL's objects, or either (`--args-as`). */
type ArgsSchema = "string" | "object" | "either";

function toolCall(args: ArgsSchema): JsonObject {
  const argumentsSchema =
    args === "string" ? text : args === "object" ? { type: "object" } : { type: ["string", "object"] };
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
        properties: { name: text, arguments: argumentsSchema },
      },
    },
  };
}

function assistantMessage(args: ArgsSchema): JsonObject {
  return {
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
}

function message(args: ArgsSchema): JsonObject {
  const system: JsonObject = {
    type: "object",
    required: ["role", "content"],
    additionalProperties: false,
    properties: { role: { enum: ["system", "developer", "user"] }, content: text, name: text },
  };
  const assistant = assistantMessage(args);
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

/**
 * A tools column for open-model trainers: the list, or its JSON text (`--tools-as string`: a
 * datasets/Arrow column of differently shaped schemas; parse it before applying a chat template).
 */
const toolsColumn = { oneOf: [{ type: "array", items: chatTool }, text] };

/**
 * TRL conversational language-modeling line with a tools column (SFTTrainer). Arguments are objects
 * by default; `--args-as string` writes JSON text (parse it before a template that `tojson`s them).
 */
export const SFT_TRL_SCHEMA: JsonObject = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "TRL conversational SFT line (with tools)",
  type: "object",
  required: ["messages"],
  additionalProperties: false,
  properties: {
    messages: { type: "array", minItems: 2, items: message("either") },
    tools: toolsColumn,
  },
};

/** One assistant turn: a decision (what `chosen`/`rejected` and DPO outputs hold, nothing else). */
const oneAssistantTurn = (args: ArgsSchema): JsonObject => ({
  type: "array",
  minItems: 1,
  maxItems: 1,
  items: assistantMessage(args),
});

/**
 * TRL conversational preference line with an explicit prompt (DPOTrainer, RewardTrainer): `chosen`
 * and `rejected` are one assistant message each.
 */
export const PREFERENCE_SCHEMA: JsonObject = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "TRL conversational preference line (explicit prompt, with tools)",
  type: "object",
  required: ["prompt", "chosen", "rejected"],
  additionalProperties: false,
  properties: {
    prompt: { type: "array", minItems: 1, items: message("either") },
    chosen: oneAssistantTurn("either"),
    rejected: oneAssistantTurn("either"),
    tools: toolsColumn,
  },
};

/** OpenAI DPO fine-tuning line: the shared prompt as `input`, one assistant message per output. */
export const PREFERENCE_OPENAI_SCHEMA: JsonObject = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "OpenAI DPO fine-tuning line (with tools)",
  type: "object",
  required: ["input", "preferred_output", "non_preferred_output"],
  additionalProperties: false,
  properties: {
    input: {
      type: "object",
      required: ["messages"],
      additionalProperties: false,
      properties: {
        messages: { type: "array", minItems: 1, items: message("string") },
        tools: { type: "array", items: chatTool },
        parallel_tool_calls: { type: "boolean" },
      },
    },
    preferred_output: oneAssistantTurn("string"),
    non_preferred_output: oneAssistantTurn("string"),
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
    "violations",
    "violation_penalty",
    "return",
  ],
  properties: {
    schemaVersion: { const: 2 },
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
    violations: {
      type: "array",
      items: {
        type: "object",
        required: ["code", "step", "detail"],
        properties: { code: text, step: { type: "integer", minimum: -1 }, detail: text },
      },
    },
    violation_penalty: { type: "number", minimum: 0 },
    return: { type: "number" },
  },
};

export type ExportFormat = "records" | "sft" | "rollouts" | "preference";

export const EXPORT_SCHEMAS = {
  sft: SFT_OPENAI_SCHEMA,
  "sft-trl": SFT_TRL_SCHEMA,
  rollouts: ROLLOUT_SCHEMA,
  preference: PREFERENCE_SCHEMA,
  "preference-openai": PREFERENCE_OPENAI_SCHEMA,
} as const;
