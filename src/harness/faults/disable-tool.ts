import { z } from "zod";
import type { Action, Observation } from "../../core/contracts.ts";
import { blocked, defineRule } from "../rule.ts";

const params = z
  .object({
    tool: z.string().min(1).describe("The tool to disable."),
    hide: z.boolean().default(true).describe("Also remove it from the tool list the agent is shown."),
    code: z.string().min(1).default("tool_disabled").describe("Error code of a call to it."),
  })
  .strict();

/** `rule.disable-tool@1`: calls of the tool are refused (not retryable); by default it is not listed either. */
export const disableTool = defineRule({
  id: "rule.disable-tool@1",
  description: "a tool is disabled (refused, and hidden from the tool list)",
  params,
  create: (p: z.infer<typeof params>) => ({
    id: "rule.disable-tool@1",
    params: p,
    filterAction(action) {
      if (action.tool !== p.tool) return action as Action;
      return blocked(`${p.tool} is disabled`, { code: p.code, retryable: false });
    },
    filterObservation(obs) {
      if (obs.kind !== "task" || !p.hide) return obs as Observation;
      return { ...obs, tools: obs.tools.filter((t) => t.name !== p.tool) } as Observation;
    },
  }),
});
