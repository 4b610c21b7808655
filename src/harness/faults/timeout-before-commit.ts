import { z } from "zod";
import type { Action } from "../../core/contracts.ts";
import { blocked, defineRule } from "../rule.ts";

const params = z
  .object({
    tool: z.string().min(1).describe("The write tool that times out."),
    times: z.number().int().min(1).default(1).describe("How many calls time out."),
    onlyIfItWouldSucceed: z
      .boolean()
      .default(true)
      .describe("Only calls the world would accept time out (probed on a throwaway copy)."),
    seconds: z
      .number()
      .min(0)
      .default(0)
      .describe("Virtual seconds the timed-out call takes (needs time control)."),
  })
  .strict();

/**
 * `rule.timeout-before-commit@1`: the call never reaches the world (nothing commits); the agent gets
 * a retryable `timeout`, which it cannot tell apart from a lost reply.
 */
export const timeoutBeforeCommit = defineRule({
  id: "rule.timeout-before-commit@1",
  description: "a write times out before it commits: nothing is written, the agent gets a retryable timeout",
  params,
  create: (p: z.infer<typeof params>) => ({
    id: "rule.timeout-before-commit@1",
    params: p,
    ...(p.onlyIfItWouldSucceed ? { directives: { shadow: { tools: [p.tool], secondsAgo: 0 } } } : {}),
    filterAction(action, state) {
      if (action.tool !== p.tool) return action as Action;
      const fired = state.history.filter((e) => e.tool === p.tool && e.blocked).length;
      if (fired >= p.times) return action as Action;
      if (p.onlyIfItWouldSucceed && !state.shadow?.result.ok) return action as Action;
      return blocked("the request timed out", { code: "timeout", retryable: true, seconds: p.seconds });
    },
  }),
});
