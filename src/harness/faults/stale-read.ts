import { z } from "zod";
import type { StepResult } from "../../core/contracts.ts";
import { defineRule } from "../rule.ts";

const params = z
  .object({
    tool: z.string().min(1).describe("The read tool that answers from the past."),
    seconds: z.number().positive().describe("How stale the answer is (virtual seconds)."),
  })
  .strict();

/**
 * `rule.stale-read@1`: the read reaches the world (time passes, it is traced), but the agent gets the
 * answer the world would have given `seconds` ago (run on a copy restored from that time; before the
 * episode's start, the start state).
 */
export const staleRead = defineRule({
  id: "rule.stale-read@1",
  description: "a read tool answers with the state as of N seconds ago",
  params,
  create: (p: z.infer<typeof params>) => ({
    id: "rule.stale-read@1",
    params: p,
    directives: { shadow: { tools: [p.tool], secondsAgo: p.seconds } },
    modifyTransition(action, result, state): StepResult {
      const obs = result.observation;
      if (action.tool !== p.tool || obs.kind !== "tool_result" || !obs.result.ok || !state.shadow) {
        return result as StepResult;
      }
      return { ...result, observation: { ...obs, result: state.shadow.result } } as StepResult;
    },
  }),
});
