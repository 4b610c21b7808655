import { z } from "zod";
import type { Action } from "../../core/contracts.ts";
import { blocked, defineRule, matchesTool } from "../rule.ts";

const params = z
  .object({
    tools: z.array(z.string().min(1)).min(1).describe("Tools that are down."),
    from: z.number().min(0).default(0).describe("Start of the outage (virtual seconds, inclusive)."),
    until: z.number().positive().optional().describe("End of the outage (exclusive); absent: never ends."),
    times: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        "A transient fault: only the first `times` calls of each tool during the outage are refused " +
          "(`temporarily unavailable`); absent: every call is.",
      ),
  })
  .strict()
  .refine((p) => p.until === undefined || p.until > p.from, { message: "`until` must be after `from`" });

/**
 * `rule.unavailable@1`: the tools answer a retryable `unavailable` during [from, until) — every call, or
 * with `times` only the first `times` calls of each tool (a transient fault: the next call goes through).
 */
export const unavailable = defineRule({
  id: "rule.unavailable@1",
  description: "tools are down (for a time window, or their first `times` calls): retryable unavailable",
  params,
  create: (p: z.infer<typeof params>) => ({
    id: "rule.unavailable@1",
    params: p,
    filterAction(action, state) {
      const down = state.now >= p.from && (p.until === undefined || state.now < p.until);
      if (!down || !matchesTool(p.tools, action.tool)) return action as Action;
      if (p.times !== undefined) {
        const refused = state.history.filter((e) => e.blocked && e.tool === action.tool).length;
        if (refused >= p.times) return action as Action;
      }
      const what = p.times !== undefined ? "temporarily unavailable" : "unavailable";
      return blocked(`${action.tool} is ${what}`, {
        code: "unavailable",
        retryable: true,
        ...(p.until !== undefined
          ? { extra: { retry_after: Math.max(1, Math.ceil(p.until - state.now)) } }
          : {}),
      });
    },
  }),
});
