import type { JsonObject, JsonValue } from "../core/json.ts";
import type { RuleHookName } from "./rule-code-failure.ts";

/**
 * Checks what a generated hook returned (plain JSON from the sandbox) against what the hook must
 * return, and fills what may be left out: an action's `callId` (the original's), a step result's
 * `info` and `truncated` (the original's). Messages say what was wrong, for the designer.
 */
export type HookOutputCheck = { ok: true; value: JsonValue } | { ok: false; message: string };

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

const bad = (message: string): HookOutputCheck => ({ ok: false, message });

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

function checkObservation(hook: string, v: JsonValue): HookOutputCheck {
  if (!isObject(v)) return bad(`${hook} must return an observation object, got ${show(v)}`);
  if (v.kind === "tool_result") {
    if (typeof v.tool !== "string") return bad(`${hook}: a tool_result observation needs a string tool`);
    if (typeof v.callId !== "string") return bad(`${hook}: a tool_result observation needs a string callId`);
    if (typeof v.now !== "number") return bad(`${hook}: a tool_result observation needs a number now`);
    const r = v.result;
    if (!isObject(r) || typeof r.ok !== "boolean")
      return bad(`${hook}: observation.result must be {ok: true, ...} or {ok: false, error}, got ${show(r)}`);
    if (r.ok === false) {
      const e = r.error;
      if (
        !isObject(e) ||
        typeof e.code !== "string" ||
        typeof e.message !== "string" ||
        typeof e.retryable !== "boolean"
      )
        return bad(
          `${hook}: a failed result needs error {code: string, message: string, retryable: boolean}, got ${show(e)}`,
        );
    }
    return { ok: true, value: v };
  }
  if (v.kind === "task") {
    if (typeof v.instruction !== "string")
      return bad(`${hook}: a task observation needs a string instruction`);
    if (!isObject(v.context)) return bad(`${hook}: a task observation needs a context object`);
    if (!Array.isArray(v.tools)) return bad(`${hook}: a task observation needs a tools list`);
    for (const t of v.tools) {
      if (
        !isObject(t) ||
        typeof t.name !== "string" ||
        typeof t.description !== "string" ||
        !isObject(t.input_schema)
      )
        return bad(`${hook}: each tool is {name, description, input_schema}, got ${show(t)}`);
    }
    return { ok: true, value: v };
  }
  return bad(`${hook}: an observation's kind is "task" or "tool_result", got ${show(v.kind)}`);
}

/** Checks one hook's output; `original` is the value the hook was given (the action, result, observation). */
export function checkHookOutput(hook: RuleHookName, value: JsonValue, original: JsonValue): HookOutputCheck {
  if (hook === "filterAction") {
    if (!isObject(value))
      return bad(`filterAction must return an action or blocked(...), got ${show(value)}`);
    if (value.blocked === true) {
      if (
        typeof value.reason !== "string" ||
        typeof value.code !== "string" ||
        typeof value.retryable !== "boolean"
      )
        return bad(
          "filterAction: a refusal is {blocked: true, reason, code, retryable}; build it with blocked(reason, opts)",
        );
      if (value.extra !== undefined && !isObject(value.extra))
        return bad("filterAction: blocked extra must be an object");
      if (value.seconds !== undefined && (typeof value.seconds !== "number" || value.seconds < 0))
        return bad("filterAction: blocked seconds must be a non-negative number");
      return { ok: true, value };
    }
    if (typeof value.tool !== "string" || value.tool === "")
      return bad(`filterAction must return an action {tool, args} or blocked(...), got ${show(value)}`);
    if (!isObject(value.args))
      return bad(`filterAction: the action's args must be an object, got ${show(value.args)}`);
    const callId = typeof value.callId === "string" ? value.callId : (original as JsonObject).callId;
    return { ok: true, value: { tool: value.tool, args: value.args, callId } };
  }
  if (hook === "modifyTransition") {
    if (!isObject(value) || !("observation" in value))
      return bad(
        `modifyTransition must return a step result {observation, info?, truncated?}, got ${show(value)}`,
      );
    const obs = checkObservation("modifyTransition", value.observation);
    if (!obs.ok) return obs;
    const o = original as JsonObject;
    if (value.info !== undefined && !isObject(value.info))
      return bad(`modifyTransition: info must be an object, got ${show(value.info)}`);
    if (value.truncated !== undefined && typeof value.truncated !== "boolean")
      return bad("modifyTransition: truncated must be a boolean");
    return {
      ok: true,
      value: {
        observation: obs.value,
        info: (value.info ?? o.info ?? {}) as JsonObject,
        truncated: value.truncated ?? (o.truncated as boolean),
        reward: o.reward as number,
        terminated: o.terminated as boolean,
      },
    };
  }
  return checkObservation("filterObservation", value);
}
