import {
  type CurriculumWindow,
  curriculumHealth,
  curriculumWindows,
  type HealthFinding,
  type HealthOptions,
  processByKey,
} from "../../curriculum/curriculum-health.ts";
import type { CurriculumEpisode, CurriculumEvaluation } from "../../curriculum/curriculum-records.ts";
import { escapeHtml as e } from "./escape.ts";

const PALETTE = [
  "#4c78a8",
  "#f58518",
  "#54a24b",
  "#e45756",
  "#72b7b2",
  "#b279a2",
  "#ff9da6",
  "#9d755d",
  "#bab0ac",
  "#eeca3b",
];
const W = 560;
const H = 180;
const PAD = 28;

type Series = { name: string; points: [number, number | undefined][] };

function legend(families: readonly string[]): string {
  return `<p class="cur-legend">${families
    .map(
      (f, i) =>
        `<span><span style="display:inline-block;width:10px;height:10px;background:${PALETTE[i % PALETTE.length]}"></span> ${e(f)}</span>`,
    )
    .join(" &nbsp; ")}</p>`;
}

/** Lines over the x range [x0, x1] with y in [0, yMax]; gaps where a point is undefined. */
function lineChart(label: string, series: readonly Series[], x0: number, x1: number, yMax: number): string {
  const sx = (x: number) => PAD + ((x - x0) / Math.max(1, x1 - x0)) * (W - 2 * PAD);
  const sy = (y: number) => H - PAD - (y / yMax) * (H - 2 * PAD);
  const paths = series
    .map((s, i) => {
      let d = "";
      let pen = false;
      for (const [x, y] of s.points) {
        if (y === undefined) {
          pen = false;
          continue;
        }
        d += `${pen ? "L" : "M"}${sx(x).toFixed(1)},${sy(y).toFixed(1)} `;
        pen = true;
      }
      const c = PALETTE[i % PALETTE.length];
      const dots = s.points
        .filter((p): p is [number, number] => p[1] !== undefined)
        .map(
          ([x, y]) =>
            `<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2.5" fill="${c}"><title>${e(s.name)}: ${y.toFixed(2)} at ${x}</title></circle>`,
        )
        .join("");
      return `<path d="${d.trim()}" fill="none" stroke="${c}" stroke-width="2" data-series="${e(s.name)}"/>${dots}`;
    })
    .join("\n");
  return `<svg class="cur-chart" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${e(label)}">
<line x1="${PAD}" x2="${W - PAD}" y1="${H - PAD}" y2="${H - PAD}" stroke="#999"/><line x1="${PAD}" x2="${PAD}" y1="${PAD}" y2="${H - PAD}" stroke="#999"/>
<text x="${PAD - 4}" y="${PAD + 4}" text-anchor="end" font-size="10">${yMax}</text><text x="${PAD - 4}" y="${H - PAD}" text-anchor="end" font-size="10">0</text>
<text x="${PAD}" y="${H - 8}" font-size="10">episode ${x0}</text><text x="${W - PAD}" y="${H - 8}" text-anchor="end" font-size="10">${x1}</text>
${paths}</svg>`;
}

/** Stacked bars: each window's share per family (sums to 1). */
function stackedShare(windows: readonly CurriculumWindow[], families: readonly string[]): string {
  const bw = (W - 2 * PAD) / Math.max(1, windows.length);
  const bars = windows
    .map((w, i) => {
      let y = H - PAD;
      return families
        .map((f, j) => {
          const s = w.share[f] ?? 0;
          const h = s * (H - 2 * PAD);
          y -= h;
          return s > 0
            ? `<rect x="${(PAD + i * bw + 1).toFixed(1)}" y="${y.toFixed(1)}" width="${(bw - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${PALETTE[j % PALETTE.length]}" data-family="${e(f)}"><title>${e(f)}: ${(100 * s).toFixed(0)}% of episodes ${w.from}-${w.to}</title></rect>`
            : "";
        })
        .join("");
    })
    .join("\n");
  return `<svg class="cur-chart cur-share" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="sampling share per family over time">
<line x1="${PAD}" x2="${W - PAD}" y1="${H - PAD}" y2="${H - PAD}" stroke="#999"/>
<text x="${PAD - 4}" y="${PAD + 4}" text-anchor="end" font-size="10">100%</text>
<text x="${PAD}" y="${H - 8}" font-size="10">episode ${windows[0]?.from ?? 0}</text><text x="${W - PAD}" y="${H - 8}" text-anchor="end" font-size="10">${windows[windows.length - 1]?.to ?? 0}</text>
${bars}</svg>`;
}

function healthList(findings: readonly HealthFinding[]): string {
  const mark = { ok: "✓", warn: "⚠", fail: "✗" };
  return `<ul class="cur-health">${findings
    .map(
      (f) =>
        `<li class="health-${f.status}" data-check="${f.check}"><b>${mark[f.status]} ${e(f.check)}</b>: ${e(f.detail)}</li>`,
    )
    .join("")}</ul>`;
}

/**
 * The curriculum section of a report: sampling share per family over time (stacked), difficulty and
 * pass rate per family over time, the regression pass rate at each evaluation, per-key process-signal
 * summaries, and the health checks (duplicate tasks, concentration, difficulty rising, regression instability).
 */
export function curriculumSection(
  r: {
    id: string;
    strategy: string;
    episodes: readonly CurriculumEpisode[];
    regression: readonly CurriculumEvaluation[];
    manifest_hash?: string;
  },
  opts: HealthOptions = {},
): string {
  const windows = curriculumWindows(r.episodes, opts.window ?? 25);
  const families = [...new Set(windows.flatMap((w) => Object.keys(w.share)))].sort();
  const mid = (w: CurriculumWindow) => Math.round((w.from + w.to) / 2);
  const per = (pick: (w: CurriculumWindow) => Record<string, number>): Series[] =>
    families.map((f) => ({ name: f, points: windows.map((w) => [mid(w), pick(w)[f]]) }));
  const last = r.episodes[r.episodes.length - 1]?.index ?? 0;
  const maxDifficulty = Math.max(1, ...r.episodes.map((x) => x.difficulty));
  const regression: Series[] = [
    {
      name: "regression",
      points: r.regression.map((x) => [x.after_episode, x.passed / Math.max(1, x.planned)]),
    },
  ];
  const process = Object.entries(processByKey(r.episodes)).sort((a, b) => b[1].steps - a[1].steps);
  const rows = process
    .map(
      ([k, s]) =>
        `<tr><td class="mono">${e(k)}</td><td>${s.steps}</td><td>${s.toolErrors}</td><td>${s.repeated}</td><td>${s.wastedWaits}</td><td>${s.blocked}</td><td>${s.writesWithoutRead}</td><td>${s.afterOutcome}</td></tr>`,
    )
    .join("\n");
  return `<section id="curriculum"><h2>Curriculum <small>${e(r.id)} · ${e(r.strategy)} · ${r.episodes.length} episodes · windows of ${opts.window ?? 25}</small></h2>
<h3>Health checks</h3>
${healthList(curriculumHealth(r, opts))}
<h3>Sampling share per family</h3>
${legend(families)}
${stackedShare(windows, families)}
<h3>Difficulty per family</h3>
${lineChart(
  "mean difficulty per family over time",
  per((w) => w.difficulty),
  1,
  last,
  maxDifficulty,
)}
<h3>Pass rate per family</h3>
${lineChart(
  "pass rate per family over time",
  per((w) => w.passRate),
  1,
  last,
  1,
)}
<h3>Regression pass rate <small class="mono">${e(r.manifest_hash ?? "")}</small></h3>
${r.regression.length ? lineChart("regression pass rate over time", regression, 1, Math.max(last, ...r.regression.map((x) => x.after_episode)), 1) : '<p class="muted">not evaluated yet</p>'}
<h3>Process signals per task key</h3>
<table class="cur-process"><thead><tr><th>key</th><th>steps</th><th>tool errors</th><th>repeated</th><th>wasted waits</th><th>blocked</th><th>writes without read</th><th>after outcome</th></tr></thead><tbody>
${rows || '<tr><td colspan="8" class="muted">no episode</td></tr>'}
</tbody></table></section>`;
}
