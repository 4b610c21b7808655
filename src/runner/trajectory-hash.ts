import type { Observation, Outcome, StepRecord, Verdict } from "../core/contracts.ts";
import { hashJsonParts } from "../core/hash.ts";

/**
 * The deterministic part of a trajectory: what any re-run of the trial must reproduce. The hash of
 * `{initial, outcome, steps, verdict}`, each step reduced to `{action, observation, reward, t,
 * terminated, truncated}`, written member by member in canonical (sorted) key order rather than built.
 */
export function trajectoryHash(
  initial: Observation | undefined,
  steps: StepRecord[],
  outcome: Outcome,
  verdict?: Verdict,
): string {
  return hashJsonParts((w) => {
    w.beginObject();
    w.member("initial", initial);
    w.member("outcome", outcome);
    w.memberKey("steps");
    w.beginArray();
    for (let i = 0; i < steps.length; i++) {
      const s = steps[i];
      w.beginObject();
      w.member("action", s.action);
      w.member("observation", s.observation);
      w.member("reward", s.reward);
      w.member("t", s.t);
      w.member("terminated", s.terminated);
      w.member("truncated", s.truncated);
      w.endObject();
    }
    w.endArray();
    w.member("verdict", verdict);
    w.endObject();
  });
}
