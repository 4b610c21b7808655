import type { Action, StepRecord, StepResult } from "../core/contracts.ts";

/**
 * The record of one agent step: the action the world stepped with and the world's own result (its
 * observation, reward, end flags and virtual time; `setup` and the harness `layers` when it says so).
 * The runner's step loop and `proving serve`'s recorded episodes both keep steps with it.
 */
export function stepRecord(index: number, action: Action, result: StepResult): StepRecord {
  const info = result.info;
  const record: StepRecord = {
    index,
    action,
    observation: result.observation,
    reward: result.reward,
    terminated: result.terminated,
    truncated: result.truncated,
    t: info.now,
  };
  if (info.setup) record.setup = true;
  if (info.layers?.length) record.layers = info.layers;
  return record;
}
