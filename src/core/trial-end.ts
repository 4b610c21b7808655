import type { Outcome } from "./contracts.ts";
import type { Fault } from "./errors.ts";

/**
 * How a trial ended before its episode did: thrown by a phase of the trial (a budget, the deadline,
 * a bad action, a crash) or by an agent that knows its trial is over, and caught once, by `runTrial`.
 * `fault` says who is to blame when an error caused the end (absent for budgets, timeouts and
 * contamination).
 */
export class TrialEnd extends Error {
  constructor(
    readonly outcome: Outcome,
    readonly reason: string,
    readonly fault?: Fault,
  ) {
    super(reason);
  }
}
