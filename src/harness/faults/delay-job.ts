import { z } from "zod";
import { defineRule } from "../rule.ts";

const params = z
  .object({
    kinds: z.array(z.string().min(1)).default([]).describe("Job kinds to delay (empty: every kind)."),
    seconds: z.number().positive().describe("How much later each job fires."),
  })
  .strict();

/** `rule.delay-job@1`: background jobs (of these kinds) fire `seconds` later (needs time control). */
export const delayJob = defineRule({
  id: "rule.delay-job@1",
  description: "background jobs fire later than scheduled",
  params,
  create: (p: z.infer<typeof params>) => ({
    id: "rule.delay-job@1",
    params: p,
    directives: { deferJobs: { kinds: p.kinds, seconds: p.seconds } },
  }),
});
