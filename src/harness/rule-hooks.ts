import type { Action, ToolResult } from "../core/contracts.ts";
import { cloneJson, type JsonObject } from "../core/json.ts";
import { deepFreeze, frozenCopy } from "./deep-freeze.ts";
import type { Blocked, Rule, RuleEvent, RuleState } from "./rule.ts";

/**
 * How a rule's hooks are run, wherever the rule acts (a `RuleLayer` around an environment, or the
 * dispatch point of a tool world whose task declares the rule): the read-only state a hook gets, the
 * answer a refused call gets, and the event the rule's history keeps of each call it saw.
 */

/**
 * The read-only state a hook of `rule` gets: `world` (a view, or a function giving it, read only when
 * the hook does), `now`, `step` (calls this rule saw so far), its params and history, and `shadow`.
 */
export function ruleState(
  rule: Rule,
  history: readonly RuleEvent[],
  world: JsonObject | (() => JsonObject),
  now: number,
  shadow?: RuleState["shadow"],
): RuleState {
  let cached: JsonObject | undefined;
  const state = {
    get world() {
      cached ??= deepFreeze(cloneJson(typeof world === "function" ? world() : world));
      return cached;
    },
    now,
    step: history.length,
    params: frozenCopy(rule.params),
    history: frozenCopy(history),
    ...(shadow ? { shadow: frozenCopy(shadow) } : {}),
  };
  return Object.freeze(state);
}

/** The tool result of a call a rule refused: the rule's code, reason, retryability and extra fields. */
export function refusal(b: Blocked): ToolResult {
  const error = { code: b.code, message: b.reason, retryable: b.retryable, ...(b.extra ?? {}) };
  return { ok: false, error } as ToolResult;
}

/** Appends to a rule's history the call it saw at `t` and what the agent received. */
export function recordEvent(
  history: RuleEvent[],
  t: number,
  action: Action,
  result: ToolResult,
  blocked: boolean,
  fired: boolean,
): void {
  history.push({
    step: history.length,
    t,
    tool: String(action?.tool),
    args: cloneJson((action?.args ?? {}) as JsonObject),
    result: cloneJson(result),
    blocked,
    fired,
  });
}
