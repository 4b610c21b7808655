import type { EnvSpec } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import type { JsonLimits } from "./json-limits.ts";
import type { ServeTarget } from "./target.ts";

/** The protocol version this server speaks (bumped on incompatible wire changes). */
export const SERVE_PROTOCOL = "openenv-compatible/1";

/** What a server refuses before any world sees it (`limits` of `/metadata`; snake_case on the wire). */
export interface ServeLimits extends JsonLimits {
  /** Largest request body (HTTP) or message (WebSocket), in bytes. */
  maxBodyBytes: number;
}

/**
 * `/metadata`: OpenEnv's fields (name, description, version) plus what a remote runner needs, and
 * the server's request limits when given (`limits: {max_body_bytes, max_json_depth,
 * max_string_length}`: a client, the audit's fuzzer, keeps its requests within them).
 */
export function metadataDoc(target: ServeTarget, spec: EnvSpec, limits?: ServeLimits): JsonObject {
  const [name, version] = target.world.id.split("@");
  return {
    name: target.id,
    description: target.world.description,
    version: version ?? null,
    world: target.world.id,
    world_name: name,
    environment: target.id,
    ...(target.variant !== undefined ? { variant: target.variant } : {}),
    verifier: spec.verifier,
    tools: spec.tools as unknown as JsonObject[],
    terminal_tools: spec.terminalTools,
    families: target.world.families as unknown as JsonObject[],
    protocol: SERVE_PROTOCOL,
    capabilities: { admissible_actions: target.create().capabilities.admissible !== undefined },
    ...(limits
      ? {
          limits: {
            max_body_bytes: limits.maxBodyBytes,
            max_json_depth: limits.maxDepth,
            max_string_length: limits.maxStringLength,
          },
        }
      : {}),
  };
}

/** `/schema`: JSON Schemas of an action (one per tool), an observation, and `/state`. */
export function schemaDoc(spec: EnvSpec): JsonObject {
  const mcpActions = [
    {
      type: "object",
      title: "list_tools",
      description: "OpenEnv's ListToolsAction: answers the tool list; the world is not stepped",
      properties: { type: { const: "list_tools" }, metadata: { type: "object" } },
      required: ["type"],
      additionalProperties: false,
    },
    {
      type: "object",
      title: "call_tool",
      description: "OpenEnv's CallToolAction: one tool call; the observation also carries tool_name",
      properties: {
        type: { const: "call_tool" },
        tool_name: { enum: spec.tools.map((t) => t.name) },
        arguments: { type: "object" },
        metadata: { type: "object" },
      },
      required: ["type", "tool_name"],
      additionalProperties: false,
    },
  ];
  const action = {
    title: "Action",
    description:
      "One tool call: {tool, args} (callId optional; metadata accepted and ignored), or OpenEnv's MCP actions list_tools / call_tool.",
    oneOf: [
      ...spec.tools.map((t) => ({
        type: "object",
        title: t.name,
        description: t.description,
        properties: {
          tool: { const: t.name },
          args: t.input_schema,
          callId: { type: "string" },
          metadata: { type: "object" },
        },
        required: ["tool"],
        additionalProperties: false,
      })),
      ...mcpActions,
    ],
  };
  const toolResult = {
    oneOf: [
      { type: "object", properties: { ok: { const: true } }, required: ["ok"] },
      {
        type: "object",
        properties: {
          ok: { const: false },
          error: {
            type: "object",
            properties: {
              code: { type: "string" },
              message: { type: "string" },
              retryable: { type: "boolean" },
            },
            required: ["code", "message", "retryable"],
          },
        },
        required: ["ok", "error"],
      },
    ],
  };
  const observation = {
    title: "Observation",
    oneOf: [
      {
        type: "object",
        properties: {
          kind: { const: "task" },
          instruction: { type: "string" },
          context: { type: "object" },
          tools: { type: "array", items: { type: "object" } },
        },
        required: ["kind", "instruction", "context", "tools"],
      },
      {
        type: "object",
        properties: {
          kind: { const: "tool_result" },
          tool: { type: "string" },
          callId: { type: "string" },
          result: toolResult,
          now: { type: "number", description: "virtual seconds since the episode started" },
        },
        required: ["kind", "tool", "callId", "result", "now"],
      },
    ],
  };
  const nullable = (type: string) => ({ type: [type, "null"] });
  const state = {
    title: "State",
    type: "object",
    properties: {
      episode_id: nullable("string"),
      step_count: { type: "integer", minimum: 0 },
      world: { type: "string" },
      environment: { type: "string" },
      task_id: nullable("string"),
      family: nullable("string"),
      difficulty: nullable("integer"),
      seed: nullable("integer"),
      now: { type: "number" },
      done: { type: "boolean" },
      terminated: { type: "boolean" },
      truncated: { type: "boolean" },
      total_reward: { type: "number" },
      verdict: { type: "object", description: "present once the episode has ended" },
    },
    required: ["episode_id", "step_count", "world", "done"],
  };
  return { action, observation, state } as unknown as JsonObject;
}
