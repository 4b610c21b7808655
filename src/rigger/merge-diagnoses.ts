import type { JsonValue } from "../core/json.ts";
import type { Diagnosis, Evidence } from "./types.ts";

const toolOf = (d: Diagnosis) => (typeof d.facts?.tool === "string" ? d.facts.tool : undefined);
const sources = (d: Diagnosis, fallback: string): string[] =>
  Array.isArray(d.facts?.diagnosers)
    ? (d.facts.diagnosers as JsonValue[]).filter((x): x is string => typeof x === "string")
    : [fallback];

function unionEvidence(a: readonly Evidence[], b: readonly Evidence[]): Evidence[] {
  const out = a.map((e) => ({ trialId: e.trialId, steps: [...e.steps] }));
  for (const e of b) {
    const same = out.find((x) => x.trialId === e.trialId);
    if (same) same.steps = [...new Set([...same.steps, ...e.steps])].sort((x, y) => x - y);
    else out.push({ trialId: e.trialId, steps: [...e.steps] });
  }
  return out;
}

const union = <T>(a: readonly T[], b: readonly T[]) => [...new Set([...a, ...b])];

/**
 * Merges a second diagnoser's diagnoses into the rule-based ones: a diagnosis of the same pattern
 * (and the same tool, when both name one) gets the union of the evidence, families, difficulties and
 * violations, and `facts.diagnosers` lists both sources; the others are appended after the rule
 * diagnoses, in their own order. The rule diagnoses keep their order and their facts.
 */
export function mergeDiagnoses(rules: readonly Diagnosis[], extra: readonly Diagnosis[]): Diagnosis[] {
  const out: Diagnosis[] = rules.map((d) => ({
    ...d,
    facts: { ...(d.facts ?? {}), diagnosers: sources(d, "rules") },
  }));
  for (const d of extra) {
    const tool = toolOf(d);
    const same = out.find((r) => r.pattern === d.pattern && (!tool || !toolOf(r) || toolOf(r) === tool));
    if (!same) {
      out.push({ ...d });
      continue;
    }
    const before = new Set(same.evidence.map((e) => e.trialId));
    same.evidence = unionEvidence(same.evidence, d.evidence);
    same.families = union(same.families, d.families).sort();
    same.difficulties = union(same.difficulties, d.difficulties).sort((a, b) => a - b);
    same.violations = union(same.violations, d.violations).sort();
    same.facts = { ...same.facts, diagnosers: union(sources(same, "rules"), sources(d, "llm")) };
    if (same.support) {
      const added = d.evidence.filter((e) => !before.has(e.trialId)).length;
      same.support = { trials: Math.min(same.support.trials + added, same.support.of), of: same.support.of };
    }
  }
  return out;
}
