/**
 * The codes of error observations an agent receives from a tool (`{ok: false, error: {code, message,
 * retryable}}`), beside the error catalogue (`error-catalogue.ts`, which `docs/errors.md` renders with
 * this table). They are observations, not exceptions: they never end a trial and have no fault.
 * Harness rules may be configured with other codes.
 */
export interface ToolErrorEntry {
  /** Whether the built-in tools and rules mark it retryable. */
  readonly retryable: boolean;
  readonly meaning: string;
}

/**
 * Codes of error observations (`{ok: false, error: {code, message, retryable}}`): what an agent's
 * call answers. Not exceptions, no fault: a bad call never ends a trial.
 */
export const TOOL_ERRORS = {
  invalid_argument: {
    retryable: false,
    meaning: "the arguments fail the tool's schema or name something invalid, or there is no such tool",
  },
  not_found: { retryable: false, meaning: "an id that names nothing in the world" },
  approval_required: {
    retryable: false,
    meaning: "device-support: `create_replacement` on a case without an approved approval",
  },
  conditions_violated: {
    retryable: false,
    meaning: "device-support: the request breaks the approval's conditions (model, address)",
  },
  invalid_state: {
    retryable: false,
    meaning: "order-ops: the order or shipment is in a state that forbids the change",
  },
  already_shipped: { retryable: false, meaning: "order-ops: the order has shipped and cannot be cancelled" },
  timeout: { retryable: true, meaning: "the call timed out; it may or may not have committed" },
  rate_limited: { retryable: true, meaning: "too many calls; `retry_after` says how many seconds to wait" },
  unavailable: { retryable: true, meaning: "the service is down (for a while, or for good)" },
  episode_ended: { retryable: false, meaning: "a call after the episode ended; it was not run" },
  blocked: { retryable: false, meaning: "a harness rule refused the call (the default code of `blocked()`)" },
  tool_disabled: {
    retryable: false,
    meaning: "`rule.disable-tool@1`: the tool is disabled (its default code)",
  },
  internal: { retryable: false, meaning: "a harness rule layer produced no result for a call (a bug)" },
  trial_ended: {
    retryable: false,
    meaning: "MCP: the trial has ended (its terminal call or a budget); the call was not run",
  },
  no_result: { retryable: false, meaning: "MCP or fake LLM: a step or request carried no tool result" },
  outside_workspace: {
    retryable: false,
    meaning:
      "code-repair: a path outside the workspace (absolute, `..` above the root); the attempt is logged",
  },
  unparsed_result: { retryable: false, meaning: "fake LLM: a tool message that is not a JSON tool result" },
} as const satisfies Record<string, ToolErrorEntry>;

export type ToolErrorCode = keyof typeof TOOL_ERRORS;
