/** The HTML report's learning section: the three arms side by side per evaluation set, with paired tests. */
import type { LearnResult } from "../../learn/learn-result.ts";
import { ARM_LABELS, ARMS } from "../../learn/learn-result.ts";
import type { PairedComparison } from "../../stats/compare-paired.ts";
import { escapeHtml as e, pct } from "./escape.ts";

const pp = (x: number) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)} pp`;

function pairedCell(c: PairedComparison): string {
  const sig = c.mcnemar.p < 0.05 ? ' class="good"' : "";
  return `<td${sig} data-diff="${c.difference.estimate}" data-p="${c.mcnemar.p}">${e(pp(c.difference.estimate))} <span class="muted">[${e(pp(c.difference.ci[0]))}, ${e(pp(c.difference.ci[1]))}]</span></td><td>${e(c.mcnemar.p.toPrecision(3))}</td><td>${c.a_only} / ${c.b_only}</td><td>${c.pairs}</td>`;
}

/** One `<section id="learning">`: inductions (skills, support, matched trials), then each evaluation set. */
export function learnSection(r: LearnResult, labels: typeof ARM_LABELS = ARM_LABELS): string {
  const induction = (["original", "variants"] as const)
    .map((which) => {
      const arm = r.induction[which];
      const skills = arm.skills.length
        ? `<ul>${arm.skills.map((s) => `<li>${e(s.title)} <span class="muted">(${s.support} trial(s)${s.directive ? `, ${e(s.directive)}` : ""})</span></li>`).join("")}</ul>`
        : '<span class="muted">no skill reached the minimum support</span>';
      return `<tr data-induction="${which}"><td>${e(labels[which])}</td><td>${arm.trials}</td><td>${e(arm.variants.join(", "))}</td><td>${skills}</td></tr>`;
    })
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
<table class="learn-arms"><thead><tr><th>arm</th><th>passed / planned</th><th>pass rate [Wilson ${pct(r.settings.confidence, 0)}]</th></tr></thead><tbody>${rows}</tbody></table>
<table class="learn-paired"><thead><tr><th>paired (same tasks, seeds, budgets)</th><th>difference [Newcombe CI]</th><th>McNemar exact p</th><th>discordant</th><th>pairs</th></tr></thead><tbody>${pairs.map(([name, cmp]) => `<tr><td>${e(name)}</td>${pairedCell(cmp)}</tr>`).join("")}</tbody></table>`;
    })
    .join("\n");
  return `<section id="learning"><h2>Learning: no skills vs (a) original worlds vs (b) accepted variants <small>${e(r.id)} · inducer ${e(r.inducer)} · ${r.settings.inductionTrials} induction trials per arm · k = ${r.settings.k}</small></h2>
<table class="learn-induction"><thead><tr><th>induced from</th><th>trials</th><th>variants</th><th>skills (support)</th></tr></thead><tbody>${induction}</tbody></table>
${sets}</section>`;
}
