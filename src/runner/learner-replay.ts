import { isInfraOutcome, type TrialRecord, type TrialSpec } from "../core/contracts.ts";
import type { ProvingError } from "../core/errors.ts";

/** A recorded trial an agent that learns plays again: its spec as planned, and the outcome recorded. */
export interface RecordedTrial {
  spec: TrialSpec;
  outcome: string;
}

/**
 * Plays recorded trials again for an agent that learns across trials, in their order and in memory
 * (`play` records nothing), so it learns from them as it did when they were recorded and continues a
 * resumed run with the policy it had. A trial the infrastructure spoiled taught nothing and is not
 * played (the random numbers its actions drew are not drawn again). A trial that ends otherwise than
 * recorded (a world or agent that is not deterministic) stops the replay with `diverged`'s error.
 * Returns false when `play` gave no record (aborted).
 */
export async function replayForLearner(
  trials: readonly RecordedTrial[],
  play: (spec: TrialSpec) => Promise<TrialRecord | undefined>,
  diverged: (trial: RecordedTrial, record: TrialRecord) => ProvingError,
): Promise<boolean> {
  for (const t of trials) {
    if (isInfraOutcome(t.outcome)) continue;
    const record = await play(t.spec);
    if (!record) return false;
    if (record.outcome !== t.outcome) throw diverged(t, record);
  }
  return true;
}
