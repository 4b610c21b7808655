import type { Outcome } from "../core/contracts.ts";

/** A run's counters, as the terminal progress bar and `onTrial` see them. */
export interface Progress {
  planned: number;
  done: number;
  passed: number;
  violated: number;
  errors: number;
  outcomes: Partial<Record<Outcome, number>>;
}

/** Counters of a run of `planned` trials, `done` of them recorded before it started. */
export function newProgress(planned: number, done = 0): Progress {
  return { planned, done, passed: 0, violated: 0, errors: 0, outcomes: {} };
}

/** Counts one finished trial (a record or a stored summary: its outcome and whether it has violations). */
export function countTrial(progress: Progress, outcome: Outcome, violated: boolean): void {
  progress.done++;
  progress.outcomes[outcome] = (progress.outcomes[outcome] ?? 0) + 1;
  if (outcome === "passed") progress.passed++;
  if (violated) progress.violated++;
  if (outcome === "agent_error" || outcome === "infra_error") progress.errors++;
}
