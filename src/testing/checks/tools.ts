import { z } from "zod";
import type { Scope } from "../check-run.ts";
import { schemaProblems } from "../json-schema.ts";
import type { CheckPlan, PlannedCheck } from "./planned-check.ts";

/** Tools: unique portable names, descriptions, valid JSON Schema objects; the reset observation lists them. */
export function toolChecks({ subject, spec }: CheckPlan): PlannedCheck[] {
  const first = subject.firstCell();
  return [
    {
      name: "tools: unique names, descriptions, valid JSON Schema (2020-12) objects",
      kind: "tools",
      covers: `${spec.tools.length} tools`,
      async run(run) {
        const tools = spec.tools;
        await run.scope("", async (s: Scope) => {
          s.expect(tools.length > 0, "an environment has tools");
          s.expect(new Set(tools.map((t) => t.name)).size === tools.length, "tool names are unique");
          for (const name of spec.terminalTools)
            s.expect(
              tools.some((t) => t.name === name),
              `terminal tool ${name} is not one of the tools`,
            );
        });
        for (const t of tools) {
          await run.scope(`tool ${t.name}`, async (s: Scope) => {
            s.expect(
              typeof t.name === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(t.name),
              "the name is not a portable function name",
            );
            s.expect(typeof t.description === "string" && t.description.length > 0, "no description");
            const problems = schemaProblems(t.input_schema);
            s.expect(problems.length === 0, () => `invalid JSON Schema: ${problems.join("; ")}`);
            s.must(t.input_schema?.type === "object", "a tool takes one JSON object");
            try {
              z.fromJSONSchema(t.input_schema as never);
            } catch (err) {
              s.fail(`zod cannot load its schema: ${String(err)}`);
            }
          });
        }
        if (!first) return;
        await run.scope("reset", async (s: Scope) => {
          const env = subject.create(first);
          const obs = await env.reset({ task: subject.task(first), seed: first.seed });
          s.must(obs.kind === "task", `the reset observation is of kind ${obs.kind}, not task`);
          s.equal(obs.tools, tools, "the reset observation lists the tools");
          s.equal(env.spec.tools, tools, "a second instance lists other tools");
        });
      },
    },
  ];
}
