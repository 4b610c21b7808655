import type { Action, AgentAction } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import { TrialEnd } from "../core/trial-end.ts";
import { toActionJson } from "./action-json.ts";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const bad = (reason: string) => new TrialEnd("agent_error", reason, "agent");

/**
 * Checks what an agent's `act()` returned is an action `{tool, args}` (a missing `callId` becomes
 * `call-<index>`) and copies it into plain JSON (`toActionJson`) before anything keeps it: the world
 * steps with, and the record stores, the copy, so the agent cannot change either afterwards. Anything
 * else (not an action, or not plain JSON: a cycle, a BigInt, a getter, a Proxy, a class instance)
 * ends the trial as `agent_error`, the agent's fault.
 */
export function toAction(value: unknown, index: number): { action: Action; meta?: AgentAction["meta"] } {
  if (value === undefined) throw bad("act() returned undefined, not an action {tool, args}");
  const copied = toActionJson(value);
  if (!copied.ok) throw bad(`act() returned an action that is not plain JSON: ${copied.problem}`);
  const plain = copied.value;
  if (!isObject(plain))
    throw bad(`act() returned ${JSON.stringify(plain).slice(0, 200)}, not an action {tool, args}`);
  if (typeof plain.tool !== "string" || plain.tool.length === 0)
    throw bad("act() returned an action without a string `tool`");
  const args = plain.args === undefined ? {} : plain.args;
  if (!isObject(args)) throw bad("act() returned an action whose `args` is not an object");
  const callId = typeof plain.callId === "string" && plain.callId.length > 0 ? plain.callId : `call-${index}`;
  const action: Action = { tool: plain.tool, args: args as JsonObject, callId };
  return isObject(plain.meta) ? { action, meta: plain.meta as AgentAction["meta"] } : { action };
}
