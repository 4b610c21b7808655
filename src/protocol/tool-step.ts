import type { Outcome, ToolResult, Verdict } from "../core/contracts.ts";

/** How an episode ended, as the answer to a tool call tells it. */
export interface EpisodeEndNote {
  outcome: Outcome;
  /** The verifier's verdict (absent when the world could not be judged). */
  verdict?: Verdict;
}

/**
 * One tool call's step as either MCP face (`proving serve`'s `/mcp`, `proving mcp`) knows it: the
 * world's answer and the episode's bookkeeping. What a client receives is built from this alone
 * (`mcpCallResult`), so the same world answers alike on both faces.
 */
export interface ToolStep {
  /** The world's answer: `{ok: true, ...}`, or `{ok: false, error: {code, message, retryable}}`. */
  result: ToolResult;
  /** The episode is over: this call ended it, or it had ended before the call. */
  done: boolean;
  /** The step's reward (`null` when unknown, or when the call took no step). */
  reward: number | null;
  episodeId: string | null;
  /** Steps the agent has taken in the episode, this call's included. */
  stepCount: number | null;
  /** Virtual seconds after the step. */
  now: number | null;
  /** Once the episode has ended: its outcome and the verdict. */
  end?: EpisodeEndNote;
}
