import { configError } from "../core/errors.ts";

/** A group of rollouts of one task (GRPO-style): their pass/fail. */
export interface RolloutGroup<T = unknown> {
  task: T;
  passed: readonly boolean[];
}

/** A group teaches something only when its rollouts disagree: 0 < passes < size. */
export function informative(group: RolloutGroup): boolean {
  const passes = group.passed.filter(Boolean).length;
  return passes > 0 && passes < group.passed.length;
}

export interface DynamicSampleResult<T> {
  kept: RolloutGroup<T>[];
  /** Groups dropped because every rollout passed or every one failed. */
  dropped: RolloutGroup<T>[];
  /** Groups drawn in all. */
  drawn: number;
  /** True when the cap was reached before the batch filled. */
  short: boolean;
}

/**
 * The dynamic-sampling filter of DAPO (Yu et al. 2025): draw groups until `batchSize` informative ones
 * are kept, dropping groups whose rollouts all pass or all fail (their advantage is zero), with a cap
 * of `maxDraws` groups in all (default 3 × batchSize) so a saturated task space cannot loop forever.
 */
export async function dynamicSample<T>(
  draw: () => Promise<RolloutGroup<T>>,
  batchSize: number,
  maxDraws = 3 * batchSize,
): Promise<DynamicSampleResult<T>> {
  if (!(batchSize >= 1) || !(maxDraws >= batchSize)) {
    throw configError(
      "bad_sampler_option",
      "dynamic sampling: want batchSize >= 1 and maxDraws >= batchSize",
    );
  }
  const kept: RolloutGroup<T>[] = [];
  const dropped: RolloutGroup<T>[] = [];
  let drawn = 0;
  while (kept.length < batchSize && drawn < maxDraws) {
    const group = await draw();
    drawn++;
    (informative(group) ? kept : dropped).push(group);
  }
  return { kept, dropped, drawn, short: kept.length < batchSize };
}
