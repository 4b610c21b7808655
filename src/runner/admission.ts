/**
 * What a run's trials share outside the process and can run out of (a remote server's sessions: an
 * OpenEnv server takes one at a time unless told otherwise). `enter` resolves once one more trial may
 * start and gives back its `exit`. The run waits for it before the trial starts, so waiting for a turn
 * never counts against a trial's wall-clock budget.
 */
export interface TrialAdmission {
  enter(): Promise<() => void>;
}
