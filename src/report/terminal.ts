import Table from "cli-table3";
import pc from "picocolors";
import { OUTCOMES } from "../core/contracts.ts";
import type { ExperimentSummary, Rate } from "./summary.ts";

export interface TerminalOptions {
  /** Colors and box borders (default: when stdout is a TTY). */
  tty?: boolean;
}

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

/** The terminal report: headline, outcomes by kind, violations by code, pass rate per agent × family. */
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
