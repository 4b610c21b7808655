/** The terminal summary of a learn run: the three arms side by side per evaluation set. */
import type { PairedComparison } from "../stats/compare-paired.ts";
import { ARM_LABELS, ARMS, type LearnResult } from "./learn-result.ts";

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const signed = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}`;

export function pairedText(c: PairedComparison): string {
  return `${signed(c.difference.estimate)} pp [${signed(c.difference.ci[0])}, ${signed(c.difference.ci[1])}], McNemar p = ${c.mcnemar.p.toPrecision(3)} (${c.a_only} vs ${c.b_only} discordant, ${c.pairs} pairs)`;
}

export function renderLearnText(r: LearnResult): string {
  const lines: string[] = [];
  lines.push(`learn ${r.id} on ${r.world} (inducer ${r.inducer}, k = ${r.settings.k})`);
  for (const [name, arm] of [
    ["(a) original world", r.induction.original],
    ["(b) accepted variants", r.induction.variants],
  ] as const) {
    lines.push(
      `  ${name}: ${arm.trials} induction trial(s) [${arm.experimentId}], ${arm.skills.length} skill(s)` +
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
        `  ${ARM_LABELS[arm].padEnd(38)} ${String(a.passed).padStart(4)}/${a.planned}  ${pct(a.rate.estimate)} [${pct(a.rate.lo)}, ${pct(a.rate.hi)}]`,
      );
    }
    lines.push(`  (b) − none      ${pairedText(set.comparisons.variantsVsNone)}`);
    lines.push(`  (a) − none      ${pairedText(set.comparisons.originalVsNone)}`);
    lines.push(`  (b) − (a)       ${pairedText(set.comparisons.variantsVsOriginal)}`);
  }
  lines.push("");
  lines.push(`evaluation experiment: ${r.evaluation.experimentId}`);
  return lines.join("\n");
}
