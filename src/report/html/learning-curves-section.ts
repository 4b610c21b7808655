/**
 * The report's "Learning curves" section (experiment 1, `proving train curriculum`): per world, the
 * frozen learner's pass rate on the regression split and on the held-out families over training
 * episodes, one line per strategy with its 95% band over seeds, the sampling share per family and per
 * difficulty over time beside them, and a table of episodes to the target and each strategy against
 * the baseline.
 */
import {
  censoringNote,
  type PairedRatio,
  type StrategyComparison,
  type WorldComparison,
} from "../../train/strategy-comparison.ts";
import { type BandPoint, bandChart, shareChart } from "./band-chart.ts";
import { renderSvg } from "./charts.ts";
import { escapeHtml as e, pct } from "./escape.ts";

const svg = async (spec: Record<string, unknown> | undefined) =>
  spec ? await renderSvg(spec) : '<p class="muted">no evaluation</p>';

const ratio = (r: PairedRatio) =>
  r.estimate === null
    ? `<span class="muted">n/a: ${e(r.reason ?? "")}</span>`
    : `${r.estimate.toFixed(2)} <span class="muted">[${(r.lo as number).toFixed(2)}, ${(r.hi as number).toFixed(2)}]</span>`;

function bands(w: WorldComparison, split: "regression" | "heldout"): BandPoint[] {
  return w.strategies.flatMap((s) =>
    s[split].map((p) => ({ series: s.strategy, x: p.after, y: p.mean, lo: p.lo, hi: p.hi })),
  );
}

function table(w: WorldComparison, target: number): string {
  const rows = w.strategies
    .map((s) => {
      const last = s.regression[s.regression.length - 1];
      const held = s.heldout[s.heldout.length - 1];
      const cell = (p: typeof last | undefined) =>
        p ? `${pct(p.mean, 0)} <span class="muted">[${pct(p.lo, 0)}, ${pct(p.hi, 0)}]</span>` : "-";
      const toTarget = s.episodesToTarget
        .map((t) => `<span title="seed ${t.seed}">${t.censored ? "&gt;" : ""}${t.episodes}</span>`)
        .join(" ");
      return `<tr data-strategy="${e(s.strategy)}"><td>${e(s.strategy)}${s.default ? " <b>(default)</b>" : ""}</td><td>${cell(last)}</td><td>${cell(held)}</td><td>${toTarget} <span class="muted">(${s.reached}/${s.episodesToTarget.length} reached)</span></td><td>${s.auc.mean.toFixed(3)} <span class="muted">[${s.auc.lo.toFixed(3)}, ${s.auc.hi.toFixed(3)}]</span></td></tr>`;
    })
    .join("");
  const versus = w.comparisons
    .map(
      (v) =>
        `<tr data-versus="${e(v.strategy)}"><td>${e(v.strategy)} ÷ ${e(v.baseline)}</td><td>${ratio(v.episodesToTarget)}${v.episodesToTarget.censoredPairs ? ` <span class="muted">(${e(censoringNote(v.episodesToTarget))})</span>` : ""}</td><td>${ratio(v.auc)}</td><td>${v.aucDifference.estimate.toFixed(3)} <span class="muted">[${v.aucDifference.lo.toFixed(3)}, ${v.aucDifference.hi.toFixed(3)}]</span></td></tr>`,
    )
    .join("");
  return `<table class="learning-curves"><thead><tr><th>strategy</th><th>regression at ${w.budget}</th><th>held out at ${w.budget}</th><th>episodes to ${pct(target, 0)} per seed (&gt;: not reached, the budget is a lower bound)</th><th>area under the regression curve</th></tr></thead><tbody>${rows}</tbody></table>
${versus ? `<table class="learning-ratios"><thead><tr><th>paired by seed</th><th>episodes to ${pct(target, 0)}, ratio [95%]</th><th>area, ratio [95%]</th><th>area, difference [95%]</th></tr></thead><tbody>${versus}</tbody></table>` : ""}`;
}

/** One `<section id="learning-curves">` for a `compareStrategies` result. */
export async function learningCurvesSection(
  c: StrategyComparison,
  opts: { id?: string } = {},
): Promise<string> {
  const worlds: string[] = [];
  for (const w of c.worlds) {
    const charts = [
      await svg(bandChart(bands(w, "regression"), { title: "regression split (frozen)" })),
      await svg(bandChart(bands(w, "heldout"), { title: "held-out families (frozen)" })),
    ];
    for (const s of w.strategies)
      for (const by of ["family", "difficulty"] as const)
        charts.push(
          await svg(
            shareChart(
              s.shares.map((x) => ({ from: x.from, to: x.to, share: x[by] })),
              { title: `sampling share per ${by}: ${s.strategy}`, legend: by },
            ),
          ),
        );
    worlds.push(`<h3 data-world="${e(w.world)}">${e(w.world)} <small>${w.budget} episodes per run · evaluated every ${w.evalEvery} · seeds ${e(w.seeds.join(", "))} · mean over seeds, 95% bootstrap band</small></h3>
<div class="row svg">${charts.map((x) => `<div>${x}</div>`).join("")}</div>
${table(w, c.target)}`);
  }
  return `<section id="learning-curves"><h2>Learning curves${opts.id ? ` <small>${e(opts.id)}</small>` : ""}</h2>
${worlds.join("\n")}</section>`;
}
