import fs from "node:fs";
import path from "node:path";
import type { TrialSummary } from "../../core/trial-summary.ts";
import type { Store } from "../../store/store.ts";
import { isPostgresUrl } from "../../store/store-url.ts";
import { type ExperimentSummary, summarizeExperiment } from "../summary.ts";
import {
  comparisonChart,
  distributionChart,
  heatmapChart,
  METRICS,
  outcomesChart,
  renderSvg,
  stepsHistogram,
} from "./charts.ts";
import { compareForReport, type ReportComparison } from "./comparison.ts";
import { loadExperimentRows } from "./experiment-rows.ts";
import { pageRows } from "./page-data.ts";
import { renderPage } from "./render-page.ts";
import {
  breakdownSection,
  comparisonSection,
  distributionSection,
  headlineSection,
  tamperedBanner,
  unsandboxedBanner,
} from "./sections.ts";
import { gzipBase64, packTrajectories } from "./trajectory-pack.ts";

export interface HtmlReportOptions {
  /** Another experiment in the same store to compare against (paired, per family). */
  compareWith?: string;
  /** Trials per compressed trajectory chunk (default 100). */
  chunkSize?: number;
  /** Budget for embedded trajectories, in bytes of base64 text (default 8.5 MB); the rest are listed, not embedded. */
  maxTrajectoryBytes?: number;
  /** Report time (injected for tests). */
  now?: () => Date;
  /** Extra sections (HTML) placed after the others, e.g. the rigger's (`riggerSection`). */
  sections?: string[];
}

export interface HtmlReport {
  html: string;
  experimentId: string;
  summary: ExperimentSummary;
  /** The rows the summary was made from, one per planned trial. */
  rows: TrialSummary[];
  comparison?: ReportComparison;
  /** Size of the page in bytes (UTF-8). */
  bytes: number;
  /** Trials whose trajectory is embedded / recorded but left out for size. */
  embedded: number;
  omitted: number;
}

const svgOrEmpty = async (spec: Record<string, unknown> | undefined) => (spec ? renderSvg(spec) : "");

/**
 * Builds the self-contained HTML report of an experiment: headline, breakdown, distributions, an
 * optional comparison, and the trajectory viewer with every recorded trial embedded (compressed,
 * in chunks inflated on demand). The page makes no network request.
 */
export async function buildHtmlReport(
  store: Store,
  experimentId: string,
  opts: HtmlReportOptions = {},
): Promise<HtmlReport> {
  const current = await loadExperimentRows(store, experimentId);
  const summary = summarizeExperiment(current.rows);
  let comparison: ReportComparison | undefined;
  if (opts.compareWith) {
    const other = await loadExperimentRows(store, opts.compareWith);
    comparison = compareForReport(current, other);
  }
  const packed = await packTrajectories(store, experimentId, {
    ...(opts.chunkSize ? { chunkSize: opts.chunkSize } : {}),
    ...(opts.maxTrajectoryBytes !== undefined ? { maxBytes: opts.maxTrajectoryBytes } : {}),
  });
  const [outcomesSvg, heatmapSvg, stepsSvg, comparisonSvg, ...distributionSvgs] = await Promise.all([
    svgOrEmpty(outcomesChart(summary)),
    svgOrEmpty(heatmapChart(current.rows)),
    svgOrEmpty(stepsHistogram(current.rows)),
    svgOrEmpty(comparison ? comparisonChart(comparison) : undefined),
    ...METRICS.map((m) => svgOrEmpty(distributionChart(current.rows, m))),
  ]);
  const verification = await store.verifyRecords(experimentId);
  const sections = [
    tamperedBanner(verification),
    unsandboxedBanner(current.manifest),
    headlineSection(summary, outcomesSvg),
    breakdownSection(heatmapSvg),
    distributionSection(current.rows, [stepsSvg, ...distributionSvgs].filter(Boolean)),
    ...(comparison ? [comparisonSection(comparison, comparisonSvg)] : []),
    ...(opts.sections ?? []),
  ];
  const html = renderPage({
    experiment: current.experiment,
    generatedAt: (opts.now?.() ?? new Date()).toISOString(),
    sections,
    hasComparison: Boolean(comparison),
    rows: gzipBase64(pageRows(current.rows, packed.where)),
    tools: packed.tools,
    chunks: packed.chunks,
    meta: {
      experimentId,
      planned: summary.planned,
      embedded: packed.where.size,
      omitted: packed.omitted,
      rawBytes: packed.rawBytes,
    },
  });
  return {
    html,
    experimentId,
    summary,
    rows: current.rows,
    ...(comparison ? { comparison } : {}),
    bytes: Buffer.byteLength(html, "utf8"),
    embedded: packed.where.size,
    omitted: packed.omitted,
  };
}

/** Builds the report and writes it to `file` (parent directories created). */
export async function writeHtmlReport(
  store: Store,
  experimentId: string,
  file: string,
  opts: HtmlReportOptions = {},
): Promise<HtmlReport & { path: string }> {
  const report = await buildHtmlReport(store, experimentId, opts);
  const out = path.resolve(file);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, report.html);
  fs.renameSync(tmp, out);
  return { ...report, path: out };
}

/**
 * Where `proving run` writes an experiment's report by default: `reports/` beside a SQLite store file,
 * or under the working directory for a Postgres store.
 */
export function defaultReportPath(store: string, experimentId: string): string {
  const dir = isPostgresUrl(store)
    ? path.resolve("reports")
    : path.join(path.dirname(path.resolve(store)), "reports");
  return path.join(dir, `${experimentId}.html`);
}
