import { z } from "zod";
import type { Action } from "../../core/contracts.ts";
import { blocked, defineRule, matchesTool } from "../rule.ts";

const params = z
  .object({
    tools: z.array(z.string().min(1)).default([]).describe("Limited tools (empty: every tool)."),
    limit: z.number().int().min(1).describe("Calls allowed per window."),
    window: z.number().positive().describe("Window length in virtual seconds."),
  })
  .strict();

/**
 * `rule.rate-limit@1`: at most `limit` calls of the tools per sliding `window`; beyond it a 429-like
 * `rate_limited` error (retryable) with `retry_after` seconds. Refused calls do not count.
 */
export const rateLimit = defineRule({
  id: "rule.rate-limit@1",
  description: "429-like rate limit: rate_limited with retry_after beyond `limit` calls per `window` seconds",
  params,
  create: (p: z.infer<typeof params>) => ({
    id: "rule.rate-limit@1",
    params: p,
    filterAction(action, state) {
      if (!matchesTool(p.tools, action.tool)) return action as Action;
      const recent = state.history.filter(
        (e) => !e.blocked && matchesTool(p.tools, e.tool) && e.t > state.now - p.window,
      );
      if (recent.length < p.limit) return action as Action;
      const retryAfter = Math.max(1, Math.ceil(recent[0].t + p.window - state.now));
      return blocked(`too many calls; retry after ${retryAfter} s`, {
        code: "rate_limited",
        retryable: true,
        extra: { retry_after: retryAfter },
      });
    },
  }),
});
