import { z } from "zod";
import type { Observation } from "../../core/contracts.ts";
import { cloneJson, type JsonValue } from "../../core/json.ts";
import { defineRule, matchesTool } from "../rule.ts";

const params = z
  .object({
    fields: z
      .array(z.string().min(1))
      .min(1)
      .describe(
        "Dot paths into tool results (arrays are traversed), e.g. `shipment.status`, `refunds.amount`.",
      ),
    tools: z
      .array(z.string().min(1))
      .default([])
      .describe("Tools whose results lose the fields (empty: all)."),
    inTask: z.boolean().default(false).describe("Also remove the paths from the task context."),
  })
  .strict();

/** Removes `path` (dot path, arrays traversed) from a JSON value in place. */
export function removePath(value: JsonValue, path: string[]): void {
  if (path.length === 0 || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const item of value) removePath(item, path);
    return;
  }
  const [head, ...rest] = path;
  if (!(head in value)) return;
  if (rest.length === 0) delete value[head];
  else removePath(value[head], rest);
}

/** `rule.hide-field@1`: fields are removed from what the tools return (the world still has them). */
export const hideField = defineRule({
  id: "rule.hide-field@1",
  description: "a field is removed from tool results (and optionally the task context)",
  params,
  create: (p: z.infer<typeof params>) => ({
    id: "rule.hide-field@1",
    params: p,
    filterObservation(obs) {
      if (obs.kind === "task") {
        if (!p.inTask) return obs as Observation;
        const context = cloneJson(obs.context);
        for (const f of p.fields) removePath(context, f.split("."));
        return { ...obs, context } as Observation;
      }
      if (!matchesTool(p.tools, obs.tool) || !obs.result.ok) return obs as Observation;
      const result = cloneJson(obs.result) as unknown as JsonValue;
      for (const f of p.fields) removePath(result, f.split("."));
      return { ...obs, result } as Observation;
    },
  }),
});
