/**
 * `/mcp` for standard MCP clients (issue 26): the Streamable-HTTP session (`Mcp-Session-Id`, created
 * by `initialize`) is an episode, and a `reset` tool (listed beside the world's tools) starts or
 * restarts it. A client that knows nothing of OpenEnv plays: `initialize` opens a session on a task
 * the server chose (its instruction is the `instructions`), `tools/call` of a world tool steps it, the
 * `reset` tool picks another task (`seed`, `family`, `difficulty`), and DELETE ends it.
 */
import type { EnvSpec, Observation } from "../core/contracts.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { McpTool } from "../protocol/mcp-tool.ts";
import type { StepEnvelope } from "./protocol.ts";

/** The name of the reset tool. */
export const RESET_TOOL = "reset";

/** Whether `spec` leaves the name free for the reset tool (a world's own `reset` tool wins). */
export function hasResetTool(spec: EnvSpec): boolean {
  return !spec.tools.some((t) => t.name === RESET_TOOL);
}

/** The reset tool as `tools/list` shows it. */
export const resetToolDescriptor: McpTool = {
  name: RESET_TOOL,
  description:
    "Start a new episode in this session (the current one is abandoned) and return its task. " +
    "Optional: seed (the same seed is the same task), family, difficulty.",
  inputSchema: {
    type: "object",
    properties: {
      seed: { type: "integer", minimum: 0 },
      family: { type: "string" },
      difficulty: { type: "integer", minimum: 0 },
    },
    additionalProperties: false,
  },
};

/** The text of a reset's observation: the task's instruction, then what it shows, as JSON. */
export function taskText(observation: Observation): string {
  const o = observation as unknown as JsonObject;
  if (o.kind !== "task" || typeof o.instruction !== "string") return JSON.stringify(observation);
  return `${o.instruction}\n\n${JSON.stringify(o.context ?? {})}`;
}

/** A reset's reply as a tool result: the task as text, the envelope as structured content. */
export function resetResult(envelope: StepEnvelope): JsonValue {
  const meta = envelope.metadata;
  const structured = { observation: envelope.observation, metadata: meta } as unknown as JsonObject;
  return {
    content: [{ type: "text", text: taskText(envelope.observation) }],
    structuredContent: structured,
    isError: false,
    _meta: { done: false, reward: null, episode_id: meta.episode_id ?? null, step_count: 0, now: 0 },
  };
}
