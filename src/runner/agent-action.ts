import type { Action, AgentAction } from "../core/contracts.ts";
import { TrialEnd } from "./outcome.ts";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Checks what an agent's `act()` returned is an action `{tool, args}` (a missing `callId` becomes
 * `call-<index>`); anything else ends the trial as `agent_error`, the agent's fault.
 */
export function toAction(value: unknown, index: number): { action: Action; meta?: AgentAction["meta"] } {
  if (!isObject(value))
    throw new TrialEnd(
      "agent_error",
      `act() returned ${value === undefined ? "undefined" : JSON.stringify(value)}, not an action {tool, args}`,
      "agent",
    );
  if (typeof value.tool !== "string" || value.tool.length === 0) {
    throw new TrialEnd("agent_error", "act() returned an action without a string `tool`", "agent");
  }
  const args = value.args === undefined ? {} : value.args;
  if (!isObject(args))
    throw new TrialEnd("agent_error", `act() returned an action whose \`args\` is not an object`, "agent");
  const callId = typeof value.callId === "string" && value.callId.length > 0 ? value.callId : `call-${index}`;
  const action: Action = { tool: value.tool, args: args as Action["args"], callId };
  return isObject(value.meta) ? { action, meta: value.meta as AgentAction["meta"] } : { action };
}
