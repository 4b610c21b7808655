import type { JsonObject } from "../core/json.ts";
import type { ToolStep } from "./tool-step.ts";

/**
 * A `tools/call` result (MCP's `CallToolResult`), the one shape of both MCP faces:
 * - `structuredContent`: the world's answer (`{ok, ...}`); on the call that ended the episode, and
 *   every call after it, with `outcome` and `verdict` added;
 * - `content`: one text block, that same object as JSON (for clients that read text only);
 * - `data`: that same object again, where OpenEnv's `MCPToolClient.call_tool` looks for a result;
 * - `isError`: the world refused the call (`ok: false`): a tool error the agent can read and act on,
 *   never a JSON-RPC error;
 * - `_meta`: the step's bookkeeping: `done`, `reward`, `episode_id`, `step_count`, `now` (virtual
 *   seconds), and once the episode has ended `outcome` and `verdict`.
 * (A type, not an interface: the SDK's `CallToolResult` it must be assignable to has an index signature.)
 */
export type McpCallResult = {
  content: { type: "text"; text: string }[];
  structuredContent: JsonObject;
  data: JsonObject;
  isError: boolean;
  _meta: JsonObject;
};

export function mcpCallResult(step: ToolStep): McpCallResult {
  const end = step.end;
  const ending: JsonObject = end
    ? { outcome: end.outcome, ...(end.verdict ? { verdict: end.verdict as unknown as JsonObject } : {}) }
    : {};
  const result = step.result as JsonObject;
  const payload: JsonObject = end ? { ...result, ...ending } : result;
  return {
    content: [{ type: "text", text: JSON.stringify(payload) }],
    structuredContent: payload,
    data: payload,
    isError: step.result.ok === false,
    _meta: {
      done: step.done,
      reward: step.reward,
      episode_id: step.episodeId,
      step_count: step.stepCount,
      now: step.now,
      ...ending,
    },
  };
}
