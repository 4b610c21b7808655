import { z } from "zod";
import { defineRule } from "../rule.ts";

const params = z
  .object({
    tools: z.array(z.string().min(1)).default([]).describe("Slow tools (empty: every tool)."),
    seconds: z.number().positive().describe("Extra virtual seconds per call."),
  })
  .strict();

/**
 * `rule.latency@1`: calls of the tools take `seconds` longer in virtual time: the reply arrives later
 * and background jobs due meanwhile fire before the agent acts again (needs time control).
 */
export const latency = defineRule({
  id: "rule.latency@1",
  description: "a tool takes longer in virtual time",
  params,
  create: (p: z.infer<typeof params>) => ({
    id: "rule.latency@1",
    params: p,
    directives: { latency: { tools: p.tools, seconds: p.seconds } },
  }),
});
