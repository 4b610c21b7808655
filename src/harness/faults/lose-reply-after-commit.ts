import { z } from "zod";
import type { StepResult } from "../../core/contracts.ts";
import { defineRule } from "../rule.ts";

const params = z
  .object({
    tool: z.string().min(1).describe("The write tool whose reply is lost."),
    times: z.number().int().min(1).default(1).describe("How many successful replies are lost."),
    code: z.string().min(1).default("timeout").describe("Error code the agent gets instead."),
  })
  .strict();

/**
 * `rule.lose-reply-after-commit@1`: the call reaches the world and commits; the agent gets a retryable
 * error instead of the success reply (the first `times` successful calls of `tool`).
 */
export const loseReplyAfterCommit = defineRule({
  id: "rule.lose-reply-after-commit@1",
  description: "a write commits, then its reply is lost: the agent gets a retryable timeout",
  params,
  create: (p: z.infer<typeof params>) => ({
    id: "rule.lose-reply-after-commit@1",
    params: p,
    modifyTransition(action, result, state): StepResult {
      const obs = result.observation;
      const fired = state.history.filter((e) => e.tool === p.tool && e.fired).length;
      if (action.tool !== p.tool || obs.kind !== "tool_result" || !obs.result.ok || fired >= p.times) {
        return result as StepResult;
      }
      return {
        ...result,
        observation: {
          ...obs,
          result: { ok: false, error: { code: p.code, message: "the request timed out", retryable: true } },
        },
      } as StepResult;
    },
  }),
});
