import { ProvingError } from "../../core/errors.ts";
import { wilson } from "../../stats/wilson.ts";
import {
  compareExperiments,
  comparisonJson,
  compatibilityProblems,
  type ExperimentComparison,
} from "../compare.ts";
import type { Rate } from "../summary.ts";
import type { ExperimentRows } from "./experiment-rows.ts";

export interface ComparisonSide {
  id: string;
  agents: string[];
  planned: number;
  passed: number;
  pass_rate: Rate;
  violated_trials: number;
  violations: Record<string, number>;
}

/**
 * The report's view of two experiments: each side's headline and the paired comparison of
 * `compareExperiments` (src/report/compare.ts), A − B overall, per family and per agent pair.
 */
export interface ReportComparison {
  a: ComparisonSide;
  b: ComparisonSide;
  /** Why the experiments are not comparable pair by pair; when non-empty the numbers compare only what paired up. */
  problems: string[];
  /** What the numbers might hide (missing or unpaired trials, agents left out). */
  warnings: string[];
  /** Absent when nothing pairs up (`error` says why). */
  paired?: ExperimentComparison;
  error?: string;
}

function side(x: ExperimentRows): ComparisonSide {
  const passed = x.rows.filter((r) => r.outcome === "passed").length;
  const w = wilson(passed, x.rows.length);
  const violations: Record<string, number> = {};
  for (const r of x.rows)
    for (const code of new Set(r.violations)) violations[code] = (violations[code] ?? 0) + 1;
  return {
    id: x.experiment.id,
    agents: [...new Set(x.rows.map((r) => r.agent))],
    planned: x.rows.length,
    passed,
    pass_rate: { estimate: w.estimate, ci: [w.lo, w.hi] },
    violated_trials: x.rows.filter((r) => r.violations.length > 0).length,
    violations,
  };
}

/**
 * Compares experiment A (the report's) with B. Where `proving compare` refuses two experiments that
 * do not share tasks, seeds and budgets, the report compares what pairs up and lists the problems
 * loudly beside the numbers; when nothing pairs, it says so instead of showing numbers.
 */
export function compareForReport(a: ExperimentRows, b: ExperimentRows): ReportComparison {
  const sideA = {
    id: a.experiment.id,
    manifest: a.manifest,
    trials: a.rows.filter((r) => r.outcome !== "missing"),
  };
  const sideB = {
    id: b.experiment.id,
    manifest: b.manifest,
    trials: b.rows.filter((r) => r.outcome !== "missing"),
  };
  const base = { a: side(a), b: side(b) };
  try {
    const paired = compareExperiments(sideA, sideB, { force: true });
    return { ...base, problems: paired.problems, warnings: paired.warnings, paired };
  } catch (err) {
    if (!(err instanceof ProvingError) || err.fault !== "config") throw err;
    const problems =
      (err.details as { problems?: string[] } | undefined)?.problems ?? compatibilityProblems(sideA, sideB);
    return { ...base, problems, warnings: [], error: err.message };
  }
}

/** The comparison as `report --json` prints it: both sides, problems, and the `compare --json` document. */
export function reportComparisonJson(c: ReportComparison) {
  return {
    a: c.a,
    b: c.b,
    problems: c.problems,
    warnings: c.warnings,
    ...(c.paired ? comparisonJson(c.paired) : {}),
    ...(c.error ? { error: c.error } : {}),
  };
}
