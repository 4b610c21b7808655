import type { TrialSummary } from "../core/trial-summary.ts";
import { countTrial, newProgress, type Progress } from "../runner/progress.ts";

/** Progress counters from recorded summaries (as a local run counts its records). */
export function progressOf(planned: number, recorded: readonly TrialSummary[]): Progress {
  const progress = newProgress(planned);
  for (const t of recorded) countTrial(progress, t.outcome, t.violations.length > 0);
  return progress;
}
