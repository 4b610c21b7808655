/** The terminal summary of a learn run: the arms side by side per evaluation set, and what it measures. */
import { ARM_LABELS, ARMS, type ArmComparison, type LearnResult } from "./learn-result.ts";

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const signed = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}`;

/** One comparison: the family-cluster interval, the per-seed differences, and the per-pair view beside. */
export function comparisonText(c: ArmComparison): string {
  const d = c.difference;
  const seeds = c.perSeed.map((s) => `s${s.seed} ${signed(s.difference)}`).join(", ");
  return (
    `${signed(d.estimate)} pp [${signed(d.lo)}, ${signed(d.hi)}] over ${d.clusters} famil${d.clusters === 1 ? "y" : "ies"}` +
    `${d.clusters < 5 ? " (few clusters: rough)" : ""}; per seed: ${seeds || "none"}; ` +
    `per pair (not independent): ${c.perPair.a_only} vs ${c.perPair.b_only} of ${c.perPair.pairs}, [${signed(c.perPair.newcombe[0])}, ${signed(c.perPair.newcombe[1])}]`
  );
}

export function renderLearnText(r: LearnResult): string {
  const lines: string[] = [];
  lines.push(
    `learn ${r.id} on ${r.world}: agent ${r.agent.spec} (skills via ${r.agent.channel}), inducer ${r.inducer}, k = ${r.settings.k}, induction seeds ${r.settings.inductionSeeds.join(", ")}`,
  );
  for (const [name, arms] of [
    ["(a) original world", r.induction.original],
    ["(b) accepted variants", r.induction.variants],
  ] as const) {
    for (const arm of arms)
      lines.push(
        `  ${name}, seed ${arm.seed}: ${arm.trials} induction trial(s) [${arm.experimentId}], ${arm.skills.length} skill(s)` +
          (arm.skills.length ? `: ${arm.skills.map((s) => `${s.title} (${s.support})`).join("; ")}` : ""),
      );
  }
  for (const set of r.evaluation.sets) {
    lines.push("");
    lines.push(
      `${set.name === "unmodified" ? "unmodified world" : "held-out families"}: ${set.families.join(", ")}`,
    );
    for (const arm of ARMS) {
      const a = set.arms[arm];
      lines.push(
        `  ${ARM_LABELS[arm].padEnd(37)} ${String(a.passed).padStart(4)}/${a.planned}  ${pct(a.rate.estimate)} [${pct(a.rate.lo)}, ${pct(a.rate.hi)}]`,
      );
    }
    lines.push(`  (b) − none   ${comparisonText(set.comparisons.variantsVsNone)}`);
    lines.push(`  (a) − none   ${comparisonText(set.comparisons.originalVsNone)}`);
    lines.push(`  (b) − (a)    ${comparisonText(set.comparisons.variantsVsOriginal)}`);
  }
  lines.push("");
  lines.push(
    `intervals: ${pct(r.settings.confidence)} percentile bootstrap over families (${r.settings.bootstrapIterations} resamples; each family the mean of its trials over difficulties and seeds)`,
  );
  lines.push("measures:");
  for (const m of r.measures) lines.push(`  - ${m}`);
  lines.push("does not measure:");
  for (const m of r.doesNotMeasure) lines.push(`  - ${m}`);
  lines.push(`evaluation experiment: ${r.evaluation.experimentId}`);
  return lines.join("\n");
}
