import { OUTCOMES, type Outcome } from "../../core/contracts.ts";
import { importOptional } from "../../core/optional-dependency.ts";
import type { TrialSummary } from "../../store/store.ts";
import type { ExperimentSummary } from "../summary.ts";
import type { ReportComparison } from "./comparison.ts";

/** One color per outcome kind, shared by the charts and the page's badges. */
export const OUTCOME_COLORS: Record<Outcome, string> = {
  passed: "#2e8540",
  failed: "#e07b00",
  violated: "#c62828",
  budget_exhausted: "#7b52ab",
  timeout: "#8d6e63",
  agent_error: "#d81b60",
  infra_error: "#546e7a",
  contaminated: "#37474f",
  missing: "#b0bec5",
};

const CONFIG = {
  font: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
  view: { stroke: null },
  axis: { labelFontSize: 11, titleFontSize: 11, labelLimit: 220 },
  legend: { labelFontSize: 11, titleFontSize: 11 },
};

type Spec = Record<string, unknown>;

let renderer: Promise<(spec: Spec) => Promise<string>> | undefined;

/** Renders a vega-lite spec to a static SVG string in Node (vega and vega-lite load on first use). */
export function renderSvg(spec: Spec): Promise<string> {
  renderer ??= (async () => {
    const [vega, vl] = await importOptional(() => Promise.all([import("vega"), import("vega-lite")]));
    return async (s: Spec) => {
      const compiled = vl.compile({ config: CONFIG, ...s } as never).spec;
      const view = new vega.View(vega.parse(compiled), { renderer: "none" });
      try {
        return await view.toSVG();
      } finally {
        view.finalize();
      }
    };
  })();
  return renderer.then((render) => render(spec));
}

function outcomeScale(present: Outcome[]) {
  return { domain: present, range: present.map((o) => OUTCOME_COLORS[o]) };
}

/** Outcomes by kind, as horizontal bars with counts. */
export function outcomesChart(s: ExperimentSummary): Spec {
  const present = OUTCOMES.filter((o) => s.outcomes[o] > 0);
  const values = present.map((o) => ({ outcome: o, trials: s.outcomes[o] }));
  return {
    width: 420,
    height: { step: 22 },
    data: { values },
    encoding: {
      y: { field: "outcome", type: "nominal", sort: present, title: null },
      x: { field: "trials", type: "quantitative", title: `trials (of ${s.planned} planned)` },
    },
    layer: [
      {
        mark: { type: "bar" },
        encoding: {
          color: { field: "outcome", type: "nominal", scale: outcomeScale(present), legend: null },
        },
      },
      {
        mark: { type: "text", align: "left", dx: 4 },
        encoding: { text: { field: "trials", type: "quantitative" } },
      },
    ],
  };
}

/** Pass rate per agent × family: color is the rate, the label passed/planned; a red ring marks violations. */
export function heatmapChart(rows: TrialSummary[]): Spec | undefined {
  const cells = new Map<
    string,
    { agent: string; family: string; planned: number; passed: number; violated: number }
  >();
  for (const r of rows) {
    const key = JSON.stringify([r.agent, r.family]);
    let c = cells.get(key);
    if (!c) {
      c = { agent: r.agent, family: r.family, planned: 0, passed: 0, violated: 0 };
      cells.set(key, c);
    }
    c.planned++;
    if (r.outcome === "passed") c.passed++;
    if (r.violations.length) c.violated++;
  }
  const values = [...cells.values()].map((c) => ({
    agent: c.agent,
    family: c.family,
    rate: c.planned ? c.passed / c.planned : 0,
    label: `${c.passed}/${c.planned}${c.violated ? ` ⚠${c.violated}` : ""}`,
    violated: c.violated > 0,
  }));
  if (values.length === 0) return undefined;
  const families = [...new Set(values.map((v) => v.family as string))];
  return {
    data: { values },
    width: { step: Math.max(70, Math.min(110, 900 / Math.max(1, families.length))) },
    height: { step: 28 },
    encoding: {
      x: {
        field: "family",
        type: "nominal",
        sort: families,
        title: null,
        axis: { orient: "top", labelAngle: -30 },
      },
      y: { field: "agent", type: "nominal", sort: [...new Set(values.map((v) => v.agent))], title: null },
    },
    layer: [
      {
        mark: { type: "rect", cornerRadius: 2 },
        encoding: {
          color: {
            field: "rate",
            type: "quantitative",
            title: "pass rate",
            scale: { domain: [0, 1], scheme: "redyellowgreen" },
            legend: { format: ".0%" },
          },
          stroke: { condition: { test: "datum.violated", value: "#b71c1c" }, value: null },
          strokeWidth: { condition: { test: "datum.violated", value: 2.5 }, value: 0 },
        },
      },
      {
        mark: { type: "text", fontSize: 11 },
        encoding: {
          text: { field: "label", type: "nominal" },
          color: {
            condition: { test: "datum.rate < 0.3 || datum.rate > 0.8", value: "white" },
            value: "black",
          },
        },
      },
    ],
  };
}

export interface Metric {
  key: string;
  title: string;
  value: (r: TrialSummary) => number;
}

export const METRICS: Metric[] = [
  { key: "steps", title: "steps", value: (r) => r.stats.steps },
  { key: "virtual", title: "virtual time (s)", value: (r) => r.stats.virtualSeconds },
  { key: "tokens", title: "tokens (in + out)", value: (r) => r.stats.tokensIn + r.stats.tokensOut },
  { key: "cost", title: "cost (USD)", value: (r) => r.stats.costUsd },
  { key: "wall", title: "wall time (ms)", value: (r) => r.stats.wallMs },
];

/** A metric's distribution per agent (box: quartiles, whiskers: min–max); ran trials only. */
export function distributionChart(rows: TrialSummary[], metric: Metric): Spec | undefined {
  const ran = rows.filter((r) => r.outcome !== "missing");
  if (!ran.some((r) => metric.value(r) > 0)) return undefined;
  const values = ran.map((r) => ({ agent: r.agent, v: metric.value(r) }));
  return {
    width: 380,
    height: { step: 22 },
    title: { text: metric.title, anchor: "start", fontSize: 12 },
    data: { values },
    mark: { type: "boxplot", extent: "min-max", size: 14 },
    encoding: {
      y: { field: "agent", type: "nominal", title: null },
      x: { field: "v", type: "quantitative", title: null, scale: { zero: true } },
      color: { value: "#4e79a7" },
    },
  };
}

/** Steps per trial, stacked by outcome. */
export function stepsHistogram(rows: TrialSummary[]): Spec | undefined {
  const ran = rows.filter((r) => r.outcome !== "missing");
  if (ran.length === 0) return undefined;
  const present = OUTCOMES.filter((o) => ran.some((r) => r.outcome === o));
  return {
    width: 380,
    height: 160,
    title: { text: "steps per trial, by outcome", anchor: "start", fontSize: 12 },
    data: { values: ran.map((r) => ({ steps: r.stats.steps, outcome: r.outcome })) },
    mark: "bar",
    encoding: {
      x: { field: "steps", type: "quantitative", bin: { maxbins: 30 }, title: "steps" },
      y: { aggregate: "count", type: "quantitative", title: "trials" },
      color: { field: "outcome", type: "nominal", scale: outcomeScale(present), title: null },
    },
  };
}

/** Paired differences (A − B) with their intervals: overall first, then each family. */
export function comparisonChart(c: ReportComparison): Spec | undefined {
  const p = c.paired;
  if (!p) return undefined;
  const values = [
    { group: "all", ...diff(p) },
    ...Object.entries(p.by_family).map(([family, p]) => ({ group: family, ...diff(p) })),
  ];
  const group = { field: "group", type: "nominal", sort: values.map((v) => v.group), title: null };
  return {
    width: 420,
    height: values.length * 24,
    data: { values },
    layer: [
      {
        data: { values: [{ zero: 0 }] },
        mark: { type: "rule", color: "#999", strokeDash: [3, 3] },
        encoding: { x: { field: "zero", type: "quantitative" } },
      },
      {
        mark: { type: "rule", strokeWidth: 2, color: "#4e79a7" },
        encoding: {
          y: group,
          x: {
            field: "lo",
            type: "quantitative",
            scale: { domain: [-1, 1] },
            axis: { format: "+.0%" },
            title: "pass rate A − B (95% CI)",
          },
          x2: { field: "hi" },
        },
      },
      {
        mark: { type: "point", filled: true, size: 60, color: "#1f3b5c" },
        encoding: { y: group, x: { field: "estimate", type: "quantitative" } },
      },
    ],
  };
}

const diff = (p: { difference: { estimate: number; ci: [number, number] } }) => ({
  estimate: p.difference.estimate,
  lo: p.difference.ci[0],
  hi: p.difference.ci[1],
});
