import type { Observation, Outcome, StepRecord, Verdict } from "../core/contracts.ts";
import { hashJson } from "../core/hash.ts";

/** The deterministic part of a trajectory: what any re-run of the trial must reproduce. */
export function trajectoryHash(
  initial: Observation | undefined,
  steps: StepRecord[],
  outcome: Outcome,
  verdict?: Verdict,
): string {
  return hashJson({
    initial,
    // keys in canonical (sorted) order, so the hasher finds them sorted already
    steps: steps.map((s) => ({
      action: s.action,
      observation: s.observation,
      reward: s.reward,
      t: s.t,
      terminated: s.terminated,
      truncated: s.truncated,
    })),
    outcome,
    verdict,
  });
}
