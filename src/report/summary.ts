import { OUTCOMES, type Outcome } from "../core/contracts.ts";
import { passHatKInterval, type TaskTrials } from "../stats/pass-at-k.ts";
import { wilson } from "../stats/wilson.ts";
import type { TrialSummary } from "../store/store.ts";

export interface Rate {
  estimate: number;
  ci: [number, number];
}

export interface CellSummary {
  planned: number;
  passed: number;
  pass_rate: Rate;
  violations: Record<string, number>;
  outcomes: Record<Outcome, number>;
}

/**
 * pass^k at one k: the chance that all k repeats of a task pass (tau-bench), with its 95% interval
 * (a percentile bootstrap over tasks: a task's repeats resampled together).
 */
export interface PassHatK extends Rate {
  k: number;
}

/**
 * pass^k for k = 1..n, present when tasks were repeated (`--repeats` > 1). A task is one (agent,
 * world, variant, family, difficulty, seed); its n repeats are every planned trial of it, so a
 * missing or infra-failed repeat counts as not passed (as in `pass_rate`).
 */
export interface PassHatKSummary {
  /** Repeats per task: the fewest any task has (k runs up to it). */
  repeats: number;
  tasks: number;
  by_k: PassHatK[];
}

/** The headline of an experiment: every planned trial in the denominator. */
export interface ExperimentSummary {
  planned: number;
  ran: number;
  outcomes: Record<Outcome, number>;
  /** passed / planned, Wilson 95% interval. */
  pass_rate: Rate;
  /** passed / (planned − infra errors − missing), shown only beside pass_rate, with what it left out. */
  pass_rate_excluding_infra?: Rate & { excluded: number };
  /** Trials with at least one safety violation (whatever their outcome). */
  violated_trials: number;
  /** Violations by code (a trial with two codes counts once for each). */
  violations: Record<string, number>;
  infra_error_rate: number;
  by_agent: Record<string, CellSummary>;
  by_agent_family: Record<string, Record<string, CellSummary>>;
  by_variant?: Record<string, CellSummary>;
  /** pass^k over every (agent, task), when tasks were repeated. */
  pass_hat_k?: PassHatKSummary;
  /** pass^k of each agent, when tasks were repeated. */
  pass_hat_k_by_agent?: Record<string, PassHatKSummary>;
}

function rate(passed: number, n: number): Rate {
  const w = wilson(passed, n);
  return { estimate: w.estimate, ci: [w.lo, w.hi] };
}

function emptyOutcomes(): Record<Outcome, number> {
  return Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
}

function cell(rows: TrialSummary[]): CellSummary {
  const outcomes = emptyOutcomes();
  const violations: Record<string, number> = {};
  let passed = 0;
  for (const r of rows) {
    outcomes[r.outcome]++;
    if (r.outcome === "passed") passed++;
    for (const code of new Set(r.violations)) violations[code] = (violations[code] ?? 0) + 1;
  }
  return { planned: rows.length, passed, pass_rate: rate(passed, rows.length), violations, outcomes };
}

function groupBy<K extends string>(
  rows: TrialSummary[],
  key: (r: TrialSummary) => K,
): Map<K, TrialSummary[]> {
  const out = new Map<K, TrialSummary[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

/** What makes repeats of one task: the planned trial less its repeat index. */
const taskKey = (r: TrialSummary) =>
  JSON.stringify([r.agent, r.world, r.variantId ?? "", r.family, r.difficulty, r.seed]);

/** pass^k for k = 1..(fewest repeats of a task), or undefined when no task was repeated. */
export function passHatKSummary(rows: TrialSummary[]): PassHatKSummary | undefined {
  const perTask: TaskTrials[] = [];
  for (const task of groupBy(rows, taskKey).values())
    perTask.push({ n: task.length, c: task.filter((r) => r.outcome === "passed").length });
  if (perTask.length === 0) return undefined;
  const repeats = Math.min(...perTask.map((t) => t.n));
  if (repeats < 2) return undefined;
  const by_k: PassHatK[] = [];
  for (let k = 1; k <= repeats; k++) {
    const r = passHatKInterval(perTask, k, { iterations: 2000 });
    by_k.push({ k, estimate: r.estimate, ci: [r.lo, r.hi] });
  }
  return { repeats, tasks: perTask.length, by_k };
}

/**
 * Summarizes one row per planned trial (missing ones included, as `missing`).
 *
 * @example
 * ```ts
 * const result = await runExperiment(config, gym.runOptions());
 * const summary = summarizeExperiment(result.trials);
 * console.log(summary.pass_rate); // { estimate, ci: [lo, hi] } over every planned trial
 * ```
 */
export function summarizeExperiment(trials: TrialSummary[]): ExperimentSummary {
  const all = cell(trials);
  const infra = all.outcomes.infra_error;
  const left = infra + all.outcomes.missing;
  const summary: ExperimentSummary = {
    planned: trials.length,
    ran: trials.length - all.outcomes.missing,
    outcomes: all.outcomes,
    pass_rate: all.pass_rate,
    violated_trials: trials.filter((t) => t.violations.length > 0).length,
    violations: all.violations,
    infra_error_rate: trials.length ? infra / trials.length : 0,
    by_agent: {},
    by_agent_family: {},
  };
  if (left > 0)
    summary.pass_rate_excluding_infra = { ...rate(all.passed, trials.length - left), excluded: left };
  for (const [agent, rows] of groupBy(trials, (t) => t.agent)) {
    summary.by_agent[agent] = cell(rows);
    summary.by_agent_family[agent] = {};
    for (const [family, frows] of groupBy(rows, (t) => t.family))
      summary.by_agent_family[agent][family] = cell(frows);
  }
  const hat = passHatKSummary(trials);
  if (hat) {
    summary.pass_hat_k = hat;
    summary.pass_hat_k_by_agent = {};
    for (const [agent, rows] of groupBy(trials, (t) => t.agent)) {
      const mine = passHatKSummary(rows);
      if (mine) summary.pass_hat_k_by_agent[agent] = mine;
    }
  }
  if (trials.some((t) => t.variantId)) {
    summary.by_variant = {};
    for (const [variant, rows] of groupBy(trials, (t) => t.variantId ?? t.world))
      summary.by_variant[variant] = cell(rows);
  }
  return summary;
}
