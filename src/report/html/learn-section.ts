/** The HTML report's learning section: the arms side by side per evaluation set, with family-cluster intervals. */
import type { ArmComparison, LearnResult } from "../../learn/learn-result.ts";
import { ARM_LABELS, ARMS } from "../../learn/learn-result.ts";
import { escapeHtml as e, pct } from "./escape.ts";

const pp = (x: number) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)} pp`;

function comparisonCells(c: ArmComparison): string {
  const d = c.difference;
  const sig = d.lo > 0 || d.hi < 0 ? ' class="good"' : "";
  const seeds = c.perSeed.map((s) => `s${s.seed} ${pp(s.difference)}`).join(", ");
  return `<td${sig} data-diff="${d.estimate}" data-lo="${d.lo}" data-hi="${d.hi}">${e(pp(d.estimate))} <span class="muted">[${e(pp(d.lo))}, ${e(pp(d.hi))}]</span></td><td>${d.clusters}</td><td>${e(seeds)}</td><td class="muted">${c.perPair.a_only} / ${c.perPair.b_only} of ${c.perPair.pairs} [${e(pp(c.perPair.newcombe[0]))}, ${e(pp(c.perPair.newcombe[1]))}]</td>`;
}

/** One `<section id="learning">`: inductions per seed (skills, support, matched trials), each evaluation set, what it measures. */
export function learnSection(r: LearnResult, labels: typeof ARM_LABELS = ARM_LABELS): string {
  const induction = (["original", "variants"] as const)
    .flatMap((which) =>
      r.induction[which].map((arm) => {
        const skills = arm.skills.length
          ? `<ul>${arm.skills.map((s) => `<li>${e(s.title)} <span class="muted">(${s.support} trial(s))</span></li>`).join("")}</ul>`
          : '<span class="muted">no skill reached the minimum support</span>';
        return `<tr data-induction="${which}" data-seed="${arm.seed}"><td>${e(labels[which])}</td><td>${arm.seed}</td><td>${arm.trials}</td><td>${e(arm.variants.join(", "))}</td><td>${skills}</td></tr>`;
      }),
    )
    .join("");
  const sets = r.evaluation.sets
    .map((set) => {
      const rows = ARMS.map((arm) => {
        const a = set.arms[arm];
        return `<tr data-arm="${arm}"><td>${e(labels[arm])}</td><td>${a.passed} / ${a.planned}</td><td data-rate="${a.rate.estimate}">${pct(a.rate.estimate)} <span class="muted">[${pct(a.rate.lo)}, ${pct(a.rate.hi)}]</span></td></tr>`;
      }).join("");
      const c = set.comparisons;
      const pairs = [
        ["(b) − no skills", c.variantsVsNone],
        ["(a) − no skills", c.originalVsNone],
        ["(b) − (a)", c.variantsVsOriginal],
      ] as const;
      return `<h3 data-set="${set.name}">${set.name === "unmodified" ? "Unmodified world" : "Held-out families"} <small>${e(set.families.join(", "))}</small></h3>
<table class="learn-arms"><thead><tr><th>arm</th><th>passed / planned</th><th>pass rate [family bootstrap ${pct(r.settings.confidence, 0)}]</th></tr></thead><tbody>${rows}</tbody></table>
<table class="learn-paired"><thead><tr><th>paired (same tasks, seeds, budgets)</th><th>difference [family-cluster bootstrap]</th><th>families</th><th>per induction seed</th><th>per pair (not independent; Newcombe)</th></tr></thead><tbody>${pairs.map(([name, cmp]) => `<tr><td>${e(name)}</td>${comparisonCells(cmp)}</tr>`).join("")}</tbody></table>`;
    })
    .join("\n");
  const list = (xs: string[]) => `<ul>${xs.map((x) => `<li>${e(x)}</li>`).join("")}</ul>`;
  return `<section id="learning"><h2>Learning: no skills vs (a) original world vs (b) accepted variants <small>${e(r.id)} · agent ${e(r.agent.spec)} (skills via ${e(r.agent.channel)}) · inducer ${e(r.inducer)} · ${r.settings.inductionTrials} induction trials per arm and seed · seeds ${e(r.settings.inductionSeeds.join(", "))} · k = ${r.settings.k}</small></h2>
<table class="learn-induction"><thead><tr><th>induced from</th><th>seed</th><th>trials</th><th>variants</th><th>skills (support)</th></tr></thead><tbody>${induction}</tbody></table>
${sets}
<h3>What this measures</h3>${list(r.measures)}<h3>What it does not</h3>${list(r.doesNotMeasure)}</section>`;
}
