import type { ToolResult, TrialRecord } from "../core/contracts.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";

/** One agent step of a trial as the detectors read it (Setup-replayed steps are left out). */
export interface TraceStep {
  /** The step's index in the trial's recorded steps (what evidence names). */
  index: number;
  tool: string;
  args: JsonObject;
  /** What the agent received; absent when the step's observation is not a tool result. */
  result?: ToolResult;
  t: number;
}

/** The agent's steps of a trial, in order. */
export function traceSteps(record: TrialRecord): TraceStep[] {
  return record.steps
    .filter((s) => !s.setup)
    .map((s) => ({
      index: s.index,
      tool: s.action.tool,
      args: s.action.args ?? {},
      ...(s.observation.kind === "tool_result" ? { result: s.observation.result } : {}),
      t: s.t,
    }));
}

/** Argument names that carry an idempotency key (a write the agent can retry safely with the same key). */
const KEY_ARGS = ["idempotency_key", "idempotencyKey", "request_key", "dedupe_key"];

/** The idempotency key a call carries, if any. */
export function keyOf(step: TraceStep): string | undefined {
  for (const name of KEY_ARGS) {
    const v = step.args[name];
    if (typeof v === "string" && v !== "") return v;
  }
  return undefined;
}

/** The call's subject: its arguments without the key (two calls on one subject differ only by key). */
export function subjectOf(step: TraceStep): string {
  const rest: Record<string, JsonValue> = {};
  for (const k of Object.keys(step.args).sort()) if (!KEY_ARGS.includes(k)) rest[k] = step.args[k];
  return JSON.stringify(rest);
}

export const isError = (s: TraceStep): boolean => s.result !== undefined && !s.result.ok;
export const isRetryableError = (s: TraceStep): boolean =>
  s.result !== undefined && !s.result.ok && s.result.error.retryable;
export const errorCode = (s: TraceStep): string | undefined =>
  s.result && !s.result.ok ? s.result.error.code : undefined;

/** Tools that hand work to a human (world-agnostic, by name). */
export const isEscalation = (tool: string): boolean => /escalat|handoff|hand_off|human|transfer/i.test(tool);

/** Tools that only wait (virtual time passes). */
export const isWait = (tool: string): boolean => /^(wait|sleep|pause)$/i.test(tool);

/** Did the trial fail (any recorded outcome but `passed`)? Unrun trials are not evidence. */
export const failed = (r: TrialRecord): boolean => r.outcome !== "passed" && r.outcome !== "missing";

/** The verifier's violation codes of a trial. */
export const violationCodes = (r: TrialRecord): string[] => (r.verdict?.violations ?? []).map((v) => v.code);
