import type { Agent, AgentAction, AgentSession, Observation, ToolResult } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";

/** A scripted policy's plan: yields actions, receives each action's tool result. */
export type Script = Generator<AgentAction, void, ToolResult>;

/** A successful tool result, with its fields. */
export type OkResult = { ok: true } & JsonObject;

export const isOk = (r: ToolResult): r is OkResult => r.ok;

/**
 * Calls a tool, waiting out retryable answers (`rate_limited` with its `retry_after`, transient
 * `unavailable`, `timeout`): up to `tries` calls, a `wait` between two.
 */
export function* callWithRetry(
  tool: string,
  args: JsonObject,
  tries = 6,
): Generator<AgentAction, ToolResult, ToolResult> {
  let result: ToolResult = yield { tool, args };
  for (let i = 1; i < tries && !result.ok && result.error.retryable; i++) {
    const after = (result.error as unknown as JsonObject).retry_after;
    yield {
      tool: "wait",
      args: { seconds: typeof after === "number" ? Math.max(1, Math.ceil(after)) : 5 * i },
    };
    result = yield { tool, args };
  }
  return result;
}

/**
 * Runs a script generator as an agent session: the script starts from the first observation (the
 * task), then each observation's result is fed to it.
 */
export class ScriptSession implements AgentSession {
  private script: Script | undefined;

  constructor(private readonly start: (first: Observation) => Script) {}

  async act(observation: Observation): Promise<AgentAction> {
    let next: IteratorResult<AgentAction, void>;
    if (!this.script) {
      this.script = this.start(observation);
      next = this.script.next(undefined as unknown as ToolResult);
    } else {
      if (observation.kind !== "tool_result")
        throw new Error(`unexpected observation kind ${observation.kind}`);
      next = this.script.next(observation.result);
    }
    if (next.done) throw new Error("the scripted policy has nothing more to do");
    return next.value;
  }
}

/**
 * An agent whose every session runs a fresh script, started from the task observation.
 *
 * @example
 * ```ts
 * const steady = scriptPolicy("steady", function* (first) {
 *   const target = first.kind === "task" ? Number(first.context.target) : 0;
 *   for (let i = 0; i < target; i++) {
 *     const result = yield { tool: "add", args: { n: 1 } }; // the tool's result comes back here
 *     if (!result.ok) break;
 *   }
 *   yield { tool: "done", args: {} };
 * });
 * ```
 */
export function scriptPolicy(id: string, start: (first: Observation) => Script): Agent {
  return { id, start: () => new ScriptSession(start) };
}
