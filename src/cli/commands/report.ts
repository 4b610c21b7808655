import type { Command } from "commander";
// the HTML report (and its charts) loads in the actions that write or read it
import type { TrialSummary } from "../../core/trial-summary.ts";
import type { ReportComparison, reportComparisonJson } from "../../report/html/index.ts";
import { type ExperimentSummary, summarizeExperiment } from "../../report/summary.ts";
import { renderTerminalReport } from "../../report/terminal.ts";
import type { PairedComparison } from "../../stats/compare-paired.ts";
import type { Store } from "../../store/store.ts";
import { printJson, storePath, withStore } from "../context.ts";
import { experimentOrLatest } from "./export.ts";

export interface ReportFlags {
  html?: string;
  compare?: string;
  json?: boolean;
  store?: string;
}

/** The normative `report --json` document. */
export function reportJson(
  experimentId: string,
  s: ExperimentSummary,
  comparison?: ReturnType<typeof reportComparisonJson>,
  html?: { path: string; bytes: number },
) {
  return {
    experiment: experimentId,
    planned: s.planned,
    ran: s.ran,
    outcomes: s.outcomes,
    pass_rate: s.pass_rate,
    ...(s.pass_rate_excluding_infra ? { pass_rate_excluding_infra: s.pass_rate_excluding_infra } : {}),
    infra_error_rate: s.infra_error_rate,
    violated_trials: s.violated_trials,
    violations: s.violations,
    by_agent: s.by_agent,
    by_agent_family: s.by_agent_family,
    ...(s.by_variant ? { by_variant: s.by_variant } : {}),
    ...(s.pass_hat_k ? { pass_hat_k: s.pass_hat_k, pass_hat_k_by_agent: s.pass_hat_k_by_agent ?? {} } : {}),
    ...(comparison ? { comparison } : {}),
    ...(html ? { html } : {}),
  };
}

const pct = (x: number) => `${x > 0 ? "+" : ""}${(100 * x).toFixed(1)}%`;
const diff = (p: PairedComparison) =>
  `${pct(p.difference.estimate)} [${pct(p.difference.ci[0])}, ${pct(p.difference.ci[1])}]  McNemar p=${p.mcnemar.p.toFixed(3)}  (${p.pairs} pairs: ${p.a_only} A only, ${p.b_only} B only)`;

/** A few lines of paired comparison for the terminal. */
export function renderComparisonText(c: ReportComparison): string {
  const lines = [
    `Comparison: A = ${c.a.id} (${c.a.passed}/${c.a.planned}) vs B = ${c.b.id} (${c.b.passed}/${c.b.planned})`,
  ];
  if (c.problems.length) {
    lines.push(
      `  NOT COMPARABLE pair by pair${c.paired ? " (numbers below compare only what pairs up)" : ""}:`,
    );
    for (const p of c.problems) lines.push(`    - ${p}`);
  }
  if (c.error && !c.problems.length) lines.push(`  ${c.error}`);
  for (const w of c.warnings) lines.push(`  warning: ${w}`);
  const p = c.paired;
  if (p) {
    lines.push(`  A − B overall: ${diff(p)}`);
    for (const [family, f] of Object.entries(p.by_family)) lines.push(`    ${family}: ${diff(f)}`);
  }
  return lines.join("\n");
}

/**
 * What `proving run` does at the end: writes the experiment's HTML report (to `report`, or beside
 * the store under `reports/`) and prints its path — on stdout after the terminal report, on stderr
 * when stdout carries JSON. `report === false` (`--no-report`) skips it. A report that cannot be
 * written is an error (exit code 1) but leaves the recorded trials alone.
 */
export async function writeRunReport(
  store: string | undefined,
  experimentId: string,
  report: string | boolean | undefined,
  json: boolean,
): Promise<void> {
  if (report === false) return;
  const { defaultReportPath, writeHtmlReport } = await import("../../report/html/build-report.ts");
  const location = storePath(store);
  const file = typeof report === "string" ? report : defaultReportPath(location, experimentId);
  try {
    const r = await withStore(store, "read", (s) => writeHtmlReport(s, experimentId, file));
    const line = `HTML report: ${r.path} (${(r.bytes / 1e6).toFixed(2)} MB)\n`;
    (json ? process.stderr : process.stdout).write(line);
  } catch (err) {
    process.stderr.write(
      `proving: error: could not write the HTML report (${err instanceof Error ? err.message : String(err)}); the trials are recorded, retry with \`proving report ${experimentId} --html FILE\`\n`,
    );
    process.exitCode = 1;
  }
}

/** A warning on stderr when the experiment's records do not verify (the HTML report carries a banner too). */
async function warnIfTampered(store: Store, experimentId: string): Promise<void> {
  const { verificationWarning } = await import("../../report/record-verification-text.ts");
  const warning = verificationWarning(await store.verifyRecords(experimentId));
  if (warning) process.stderr.write(`proving: warning: ${warning}\n`);
}

export function registerReport(program: Command): void {
  program
    .command("report")
    .description(
      "report an experiment: the terminal summary, --json, or one self-contained HTML file with a trajectory viewer",
    )
    .argument("[experiment]", "experiment id (default: the newest)")
    .option("--html <file>", "write the self-contained HTML report to FILE")
    .option(
      "--compare <experiment>",
      "compare with another experiment of the same store (paired on task and seed)",
    )
    .option("--json", "print the summary as one JSON document")
    .option("--store <path>", "SQLite store")
    .action(async (id: string | undefined, flags: ReportFlags) => {
      const { compareForReport, loadExperimentRows, reportComparisonJson, writeHtmlReport } = await import(
        "../../report/html/index.ts"
      );
      await withStore(flags.store, "read", async (store) => {
        const experimentId = await experimentOrLatest(store, id);
        await warnIfTampered(store, experimentId);
        let comparison: ReportComparison | undefined;
        let summary: ExperimentSummary;
        let rows: TrialSummary[];
        let html: { path: string; bytes: number } | undefined;
        if (flags.html) {
          const r = await writeHtmlReport(store, experimentId, flags.html, {
            ...(flags.compare ? { compareWith: await experimentOrLatest(store, flags.compare) } : {}),
          });
          summary = r.summary;
          rows = r.rows;
          comparison = r.comparison;
          html = { path: r.path, bytes: r.bytes };
        } else {
          const current = await loadExperimentRows(store, experimentId);
          rows = current.rows;
          summary = summarizeExperiment(rows);
          if (flags.compare) {
            const other = await loadExperimentRows(store, await experimentOrLatest(store, flags.compare));
            comparison = compareForReport(current, other);
          }
        }
        if (flags.json) {
          printJson(reportJson(experimentId, summary, comparison && reportComparisonJson(comparison), html));
          return;
        }
        const parts = [renderTerminalReport(experimentId, summary, { trials: rows })];
        if (comparison) parts.push("", renderComparisonText(comparison));
        if (html) parts.push("", `HTML report: ${html.path} (${(html.bytes / 1e6).toFixed(2)} MB)`);
        process.stdout.write(`${parts.join("\n")}\n`);
      });
    });
}
