import Table from "cli-table3";
import pc from "picocolors";
import { OUTCOMES, type Outcome } from "../core/contracts.ts";
import type { TrialSummary } from "../core/trial-summary.ts";
import type { ExperimentSummary, Rate } from "./summary.ts";

export interface TerminalOptions {
  /** Colors and box borders (default: when stdout is a TTY). */
  tty?: boolean;
  /**
   * The rows the summary was made from: with them, the report says why trials ended in an error
   * (`agent_error`, `infra_error`): their first few distinct reasons (error code and message), counted.
   */
  trials?: readonly TrialSummary[];
}

/** The outcomes whose reasons the report lists, and how many distinct reasons it shows of each. */
const EXPLAINED: readonly Outcome[] = ["agent_error", "infra_error"];
const REASONS_SHOWN = 3;
const REASON_CHARS = 200;

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const fmtRate = (r: Rate) => `${pct(r.estimate)} [${pct(r.ci[0])}, ${pct(r.ci[1])}]`;

function table(head: string[], tty: boolean): Table.Table {
  return new Table({
    head,
    style: tty ? { head: ["cyan"] } : { head: [], border: [] },
    ...(tty
      ? {}
      : {
          chars: {
            top: "",
            "top-mid": "",
            "top-left": "",
            "top-right": "",
            bottom: "",
            "bottom-mid": "",
            "bottom-left": "",
            "bottom-right": "",
            left: "",
            "left-mid": "",
            mid: "",
            "mid-mid": "",
            right: "",
            "right-mid": "",
            middle: "  ",
          },
        }),
  });
}

/**
 * The terminal report: headline, outcomes by kind, why trials ended in an error (given the rows),
 * violations by code, pass rate per agent × family.
 */
export function renderTerminalReport(
  experimentId: string,
  s: ExperimentSummary,
  opts: TerminalOptions = {},
): string {
  const tty = opts.tty ?? Boolean(process.stdout.isTTY);
  const c = tty ? pc : pc.createColors(false);
  const lines: string[] = [];
  lines.push(c.bold(`Experiment ${experimentId}`));
  lines.push(`  planned ${s.planned}, ran ${s.ran}, passed ${s.outcomes.passed}`);
  lines.push(`  pass rate (passed / planned): ${c.bold(fmtRate(s.pass_rate))}  (Wilson 95%)`);
  if (s.pass_rate_excluding_infra) {
    lines.push(
      `  excluding ${s.pass_rate_excluding_infra.excluded} infra-error/missing trial(s): ${fmtRate(s.pass_rate_excluding_infra)}`,
    );
  }
  if (s.pass_hat_k) {
    const hat = s.pass_hat_k;
    lines.push(
      `  pass^k (all k of ${hat.repeats} repeats of a task pass, ${hat.tasks} tasks): ${hat.by_k.map((p) => `pass^${p.k} ${fmtRate(p)}`).join(", ")}`,
    );
  }
  lines.push(`  infra-error rate: ${pct(s.infra_error_rate)}`);
  const v = s.violated_trials;
  lines.push(
    `  trials with safety violations: ${v > 0 ? c.red(String(v)) : "0"} (reported apart from success)`,
  );
  lines.push("");

  const outcomes = table(["outcome", "trials"], tty);
  for (const o of OUTCOMES)
    if (s.outcomes[o] > 0 || o === "missing") outcomes.push([o, String(s.outcomes[o])]);
  lines.push(c.bold("Outcomes by kind"), outcomes.toString(), "");
  if (opts.trials) lines.push(...errorReasons(opts.trials, c.bold));

  const codes = Object.keys(s.violations).sort();
  if (codes.length) {
    const vt = table(["violation", "trials"], tty);
    for (const code of codes) vt.push([code, String(s.violations[code])]);
    lines.push(c.bold("Violations by code"), vt.toString(), "");
  }

  const families = [...new Set(Object.values(s.by_agent_family).flatMap((f) => Object.keys(f)))];
  const grid = table(["agent", ...families, "all"], tty);
  for (const [agent, byFamily] of Object.entries(s.by_agent_family)) {
    const row = [agent];
    for (const f of families) {
      const cellSummary = byFamily[f];
      if (!cellSummary) {
        row.push("");
        continue;
      }
      const text = `${cellSummary.passed}/${cellSummary.planned}`;
      const bad = Object.keys(cellSummary.violations);
      const shown = bad.length ? `${text} ${bad.map(abbreviate).join(",")}` : text;
      row.push(
        cellSummary.passed === cellSummary.planned
          ? c.green(shown)
          : cellSummary.passed === 0
            ? c.red(shown)
            : c.yellow(shown),
      );
    }
    const a = s.by_agent[agent];
    row.push(`${a.passed}/${a.planned}`);
    grid.push(row);
  }
  lines.push(
    c.bold("Passed / planned per agent × family") + c.dim("  (violation codes abbreviated)"),
    grid.toString(),
  );
  return lines.join("\n");
}

/**
 * Why trials ended in an error: per outcome in EXPLAINED, its most frequent distinct reasons (the
 * error code and message the runner recorded), counted, most frequent first (ties: first seen).
 */
function errorReasons(trials: readonly TrialSummary[], bold: (s: string) => string): string[] {
  const lines: string[] = [];
  for (const outcome of EXPLAINED) {
    const counts = new Map<string, number>();
    for (const t of trials) {
      if (t.outcome === outcome) counts.set(t.reason, (counts.get(t.reason) ?? 0) + 1);
    }
    if (counts.size === 0) continue;
    const ranked = [...counts].sort((a, b) => b[1] - a[1]);
    lines.push(bold(`Why trials ended ${outcome}`));
    for (const [reason, n] of ranked.slice(0, REASONS_SHOWN)) lines.push(`  ${n}× ${oneLine(reason)}`);
    const rest = ranked.slice(REASONS_SHOWN);
    if (rest.length) {
      const trialsLeft = rest.reduce((sum, [, n]) => sum + n, 0);
      lines.push(`  … ${rest.length} other reason(s) in ${trialsLeft} trial(s)`);
    }
    lines.push("");
  }
  return lines;
}

/** A reason on one line, cut to REASON_CHARS. */
function oneLine(reason: string): string {
  const flat = reason.replace(/\s+/g, " ").trim() || "(no reason recorded)";
  return flat.length > REASON_CHARS ? `${flat.slice(0, REASON_CHARS - 1)}…` : flat;
}

const ABBREVIATIONS: Record<string, string> = {
  duplicate_write: "DUP",
  unauthorized_write_attempt: "UNAUTH",
  conditions_violated: "COND",
  unsupported_claim: "UNSUP",
  false_claim: "FALSE",
};

function abbreviate(code: string): string {
  return ABBREVIATIONS[code] ?? code;
}
