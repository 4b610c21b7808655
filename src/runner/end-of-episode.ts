import type { Outcome, StepResult, Verdict } from "../core/contracts.ts";
import { verdictOutcome, verdictReason } from "./outcome.ts";

/** How an episode ended: the outcome a trial records, its reason, and the verdict. */
export interface EndOfEpisode {
  outcome: Outcome;
  reason: string;
  verdict: Verdict;
}

/**
 * The end a step's result makes, or `undefined` while the episode goes on (neither terminated nor
 * truncated). The verdict is the one the step carries, else the verifier's (`judge.evaluate()`,
 * called only then); a truncated episode is `budget_exhausted`, a terminated one's outcome is its
 * verdict's.
 * The runner's step loop and `proving serve`'s episodes both end episodes with it.
 */
export function endOfEpisode(result: StepResult, judge: { evaluate(): Verdict }): EndOfEpisode | undefined {
  if (!result.terminated && !result.truncated) return undefined;
  const verdict = result.info.verdict ?? judge.evaluate();
  if (result.truncated) {
    return { outcome: "budget_exhausted", reason: "the environment truncated the episode", verdict };
  }
  return { outcome: verdictOutcome(verdict), reason: verdictReason(verdict), verdict };
}
