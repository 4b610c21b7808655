/** What a `proving learn` run measures and what it does not, by how its agent took the skills. */
import type { SkillChannel } from "./arm-agent.ts";

export interface LearnStatement {
  measures: string[];
  doesNotMeasure: string[];
}

const PLUMBING =
  "the plumbing: induction from the agent's own no-skill trials (per induction seed), retrieval, skill injection, and the paired evaluation with family-cluster intervals";

export function learnStatement(channel: SkillChannel, inducer: string): LearnStatement {
  const common = [
    "families other than those evaluated, or induction seeds other than those run: the interval resamples families with the seeds fixed (the per-seed differences show the seeds' spread)",
  ];
  if (channel === "demo")
    return {
      measures: [PLUMBING],
      doesNotMeasure: [
        "whether skills help an agent: demo-directives is a hand-written script whose four habits are switched off by fixed phrases of the rule inducer's texts, so its gain is built in and proves nothing about transfer",
        ...common,
      ],
    };
  if (channel === "context")
    return {
      measures: [
        PLUMBING,
        "whether this agent's pass rate changes when its task context carries the skills (context.skills)",
      ],
      doesNotMeasure: [
        "what the skills are worth to an agent that reads them: an agent that ignores context.skills (a scripted policy) shows equal arms whatever the skills say",
        ...common,
      ],
    };
  return {
    measures: [
      PLUMBING,
      `whether the skills (${inducer}) in this model's system prompt change its pass rate on these families`,
    ],
    doesNotMeasure: [
      "other models, or a real model when the endpoint is the fake provider (its scripted replies decide the result)",
      ...common,
    ],
  };
}
