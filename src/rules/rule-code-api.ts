/**
 * The rule API as a designer reads it (the `ruleApi` of a `DesignerInput`): what a generated rule's
 * module exports, what its hooks get and return, the helpers it may call, and the sandbox's limits.
 * It describes `rule.generated@1` (src/rules/generated-rule.ts) and the harness's `Rule`.
 */
export const RULE_CODE_API = `A rule is one TypeScript module (no imports) that exports up to three PURE, SYNCHRONOUS hooks and,
optionally, \`directives\` (plain data). It wraps the world: every agent call passes through it.

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Action { tool: string; args: { [k: string]: Json }; callId: string }
type ToolResult = { ok: true; [k: string]: Json } | { ok: false; error: { code: string; message: string; retryable: boolean } };
type Observation =
  | { kind: "task"; instruction: string; context: { [k: string]: Json }; tools: { name: string; description: string; input_schema: Json }[] }
  | { kind: "tool_result"; tool: string; callId: string; result: ToolResult; now: number };
interface StepResult { observation: Observation; reward: number; terminated: boolean; truncated: boolean; info: { now: number; [k: string]: Json } }
interface RuleEvent { step: number; t: number; tool: string; args: { [k: string]: Json }; result: ToolResult; blocked: boolean; fired: boolean }
interface RuleState {
  world: { [k: string]: Json };   // the world's state view (read only; see the state schema)
  now: number;                    // virtual seconds
  step: number;                   // calls this rule saw before this one
  params: { [k: string]: Json };  // the rule's config (tunable data, e.g. { times: 2 })
  history: RuleEvent[];           // every earlier call this rule saw, oldest first (your only memory)
  shadow?: { t: number; result: ToolResult }; // with directives.shadow: what the world answered secondsAgo
}
interface Blocked { blocked: true; reason: string; code: string; retryable: boolean; extra?: { [k: string]: Json }; seconds?: number }

// globals the sandbox provides:
declare function blocked(reason: string, opts?: { code?: string; retryable?: boolean; extra?: { [k: string]: Json }; seconds?: number }): Blocked;
declare function matchesTool(tools: string[] | undefined, tool: string): boolean;

// the hooks (export any of them):
export function filterAction(action: Action, state: RuleState): Action | Blocked;
//   return the action (unchanged or rewritten), or blocked(...): the call never reaches the world and
//   the agent gets {ok: false, error: {code, message: reason, retryable}}.
export function modifyTransition(action: Action, result: StepResult, state: RuleState): StepResult;
//   may change the observation, info and truncated; reward and terminated always stay the world's.
//   result.info never contains the verdict.
export function filterObservation(observation: Observation, state: RuleState): Observation;
//   sees every observation, including the first (kind "task": the instruction and the tool list).
export const directives = {
  // all optional: latency: { tools?: string[], seconds }  (calls take longer in virtual time)
  //               deferJobs: { kinds?: string[], seconds } (background jobs fire later)
  //               shadow: { tools: string[], secondsAgo }   (state.shadow: a stale answer, for stale reads)
};

Rules of the sandbox: inputs are frozen copies (never mutate them: build new objects with spread);
return plain JSON data; no async/await, Promise, timers, Date or Math.random for behaviour (Date is
fixed, Math.random is seeded); no process, require, import, fetch, globalThis tricks; each hook call
has a time limit and a memory limit and starts from a fresh global scope (keep no state in module
variables: derive everything from state.history). A hook that throws, times out or returns a wrong
shape ends the trial as an error, so guard against missing fields.

Example (the first two calls of refund_order time out before the world sees them):
export function filterAction(action: Action, state: RuleState): Action | Blocked {
  if (action.tool !== "refund_order") return action;
  const times = typeof state.params.times === "number" ? state.params.times : 2;
  const seen = state.history.filter((e) => e.tool === "refund_order" && e.blocked).length;
  if (seen < times) return blocked("the request timed out", { code: "timeout", retryable: true });
  return action;
}`;
