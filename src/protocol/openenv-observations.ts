/**
 * The observations of OpenEnv's MCP-mode step actions (`{type: "list_tools"}`, `{type: "call_tool",
 * tool_name, arguments}`), as `proving serve` answers them on `/step` and the WebSocket: OpenEnv's
 * `ListToolsObservation` and `CallToolObservation`, built on the world's own observation.
 */
import type { Observation, ToolDescriptor } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";

/** `list_tools`: `{kind: "tools", tools: [{name, description, input_schema}]}` (the world is not stepped). */
export function openEnvToolList(tools: readonly ToolDescriptor[]): JsonObject {
  return {
    kind: "tools",
    tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema })),
  };
}

/** `call_tool`: the world's observation with `tool_name` and `error: null` added, where OpenEnv's client reads them. */
export function openEnvCallToolObservation(observation: Observation, toolName: string): JsonObject {
  return { ...(observation as unknown as JsonObject), tool_name: toolName, error: null };
}

/**
 * A reset's task observation as the wire carries it: with `metadata: {instruction, context}` inside
 * it. OpenEnv's `MCPToolClient` keeps of a reset's observation only its tools and its own `metadata`
 * (never the reply's), so an agent using it would otherwise never see the task. Our clients take it
 * out again (`worldResetObservation`): the world's observation has no such member.
 */
export function openEnvResetObservation(observation: Observation): JsonObject {
  const wire = observation as unknown as JsonObject;
  if (observation.kind !== "task") return wire;
  return { ...wire, metadata: { instruction: observation.instruction, context: observation.context } };
}

/** The world's observation of a reset reply: what `openEnvResetObservation` added, taken out. */
export function worldResetObservation(observation: Observation): Observation {
  if (observation?.kind !== "task" || !("metadata" in observation)) return observation;
  const { metadata: _, ...world } = observation as Observation & { metadata?: unknown };
  return world as Observation;
}
