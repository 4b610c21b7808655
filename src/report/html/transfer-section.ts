/** The HTML report's "Transfer" section: experiment 2 (EnvHarness transfer) and 3 (rigging the learner) of `proving train`. */
import type { IntervalEstimate } from "../../stats/interval-estimate.ts";
import type { RigCheckpointResult } from "../../train/rig-checkpoints.ts";
import type { TransferResult } from "../../train/transfer.ts";
import { escapeHtml as e, pct } from "./escape.ts";

const pp = (x: number) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)} pp`;
const rate = (i: IntervalEstimate) =>
  `<td data-rate="${i.estimate}">${pct(i.estimate)} <span class="muted">[${pct(i.lo)}, ${pct(i.hi)}]</span></td>`;
const diff = (i: IntervalEstimate) => {
  const sig = i.lo > 0 || i.hi < 0 ? ' class="good"' : "";
  return `<td${sig} data-diff="${i.estimate}">${e(pp(i.estimate))} <span class="muted">[${e(pp(i.lo))}, ${e(pp(i.hi))}]</span></td>`;
};

const ARM_NAMES = {
  warm: "warm-up only",
  base: "(a) original world",
  variants: "(b) original + accepted variants",
} as const;

/**
 * One `<section id="transfer">`: the transfer table (arm, regression pass rate, held-out pass rate,
 * each with its 95% nested cluster-bootstrap interval; the paired difference (b) − (a) with its
 * interval), then per seed the variants arm (b) trained on and each arm's rates.
 */
export function transferSection(r: TransferResult): string {
  const rows = r.arms
    .map(
      (a) =>
        `<tr data-arm="${a.arm}"><td>${e(ARM_NAMES[a.arm])}</td>${rate(a.regression)}${rate(a.heldout)}<td></td></tr>`,
    )
    .join("");
  const difference = `<tr data-arm="difference"><td>(b) − (a), paired by seed</td>${diff(r.difference.regression)}${diff(r.difference.heldout)}<td>${r.seedsWithVariants} / ${r.seeds.length} seeds trained on variants (${r.distinctVariants} distinct${r.poolVariants ? ", pooled" : ""})</td></tr>`;
  const seeds = r.perSeed
    .map((s) => {
      const [a, b] = s.arms;
      const vs = s.variantSource.variants.length
        ? s.variantSource.variants
            .map(
              (v) => `${e(v.variantId)}${v.pattern ? ` <span class="muted">(${e(v.pattern)})</span>` : ""}`,
            )
            .join(", ")
        : '<span class="muted">none accepted</span>';
      const cell = (x: { passed: number; trials: number }) => `${x.passed} / ${x.trials}`;
      return `<tr data-seed="${s.seed}"><td>${s.seed}</td><td>${e(s.variantSource.source)}: ${vs}; arm (b): ${b.variants?.length ?? 0} variant(s), ${b.episodes.variant} episodes</td><td>${cell(s.warm.regression)}</td><td>${cell(a.evaluation.regression)}</td><td>${cell(b.evaluation.regression)}</td><td>${cell(a.evaluation.heldout)}</td><td>${cell(b.evaluation.heldout)}</td></tr>`;
    })
    .join("");
  return `<section id="transfer"><h2>Transfer: training on the rigger's variants, evaluated on the unmodified world <small>${e(r.id)} · ${e(r.world)} · ${e(r.learner)} · ${r.episodes} episodes per arm (${r.warmup} warm-up) · ${r.seeds.length} seeds</small></h2>
<p class="muted">Regression split: ${e(r.split.trainFamilies.join(", "))} (${r.split.regressionTasks} tasks); held-out families: ${e(r.split.heldoutFamilies.join(", ") || "none")} (${r.split.heldoutTasks} tasks), never trained on. Evaluated frozen on the unmodified world. Intervals: 95% bootstrap resampling seeds, then families within each seed.</p>
<table class="transfer"><thead><tr><th>arm</th><th>regression pass rate</th><th>held-out pass rate</th><th></th></tr></thead><tbody>${rows}${difference}</tbody></table>
<table class="transfer-seeds"><thead><tr><th>seed</th><th>variants of arm (b)</th><th>warm regression</th><th>(a) regression</th><th>(b) regression</th><th>(a) held-out</th><th>(b) held-out</th></tr></thead><tbody>${seeds}</tbody></table></section>`;
}

/** One `<section id="rig-learner">`: per checkpoint the frozen pass rate and the weaknesses named over seeds, then the answer. */
export function rigLearnerSection(r: RigCheckpointResult): string {
  const rows = r.byCheckpoint
    .map((c, i) => {
      const tops = Object.entries(c.top)
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${e(k)} × ${n}`)
        .join(", ");
      const accepted = r.perSeed.reduce((n, s) => n + (s.checkpoints[i]?.finding.accepted ?? 0), 0);
      return `<tr data-checkpoint="${c.checkpoint}"><td>${c.checkpoint}</td><td>${pct(c.regressionRate)}</td><td>${r.split.heldoutTasks ? pct(c.heldoutRate) : "-"}</td><td>${tops}</td><td>${accepted}</td></tr>`;
    })
    .join("");
  return `<section id="rig-learner"><h2>Rigging the learner <small>${e(r.id)} · ${e(r.world)} · ${e(r.learner)} · ${r.seeds.length} seeds</small></h2>
<table class="rig-learner"><thead><tr><th>episodes</th><th>regression (mean)</th><th>held-out (mean)</th><th>top weakness named (seeds)</th><th>variants accepted</th></tr></thead><tbody>${rows}</tbody></table>
<p data-answer>${e(r.answer)}</p></section>`;
}
