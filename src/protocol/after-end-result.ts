import type { Outcome, ToolResult } from "../core/contracts.ts";

/**
 * The answer to a tool call made once the trial (the episode) is over: `trial_ended`, saying how it
 * ended (`outcome`), or why it is over when it never ended as a trial does (`reason`: the client left).
 * The call never reaches the world, and takes no step.
 */
export function afterEndResult(end: { outcome: Outcome } | { reason: string }): ToolResult {
  const message =
    "outcome" in end ? `the trial has ended (${end.outcome})` : `the trial is over: ${end.reason}`;
  return { ok: false, error: { code: "trial_ended", message, retryable: false } };
}
