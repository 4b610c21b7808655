import { requireCount } from "./argument-guards.ts";
import { chooseRatio } from "./binomial-coefficient.ts";
import type { IntervalEstimate } from "./interval-estimate.ts";
import { type PairedBootstrapOptions, pairedBootstrap } from "./paired-bootstrap.ts";

/** One task's repeated trials: n trials run, c of them passed. */
export interface TaskTrials {
  n: number;
  c: number;
}

function checkTasks(perTask: readonly TaskTrials[], k: number, name: string): void {
  if (!Array.isArray(perTask) || perTask.length === 0) {
    throw new RangeError(`${name} needs at least one task`);
  }
  requireCount("k", k);
  if (k < 1) throw new RangeError(`${name} needs k >= 1, got ${k}`);
  perTask.forEach((task, i) => {
    requireCount(`perTask[${i}].n`, task.n);
    requireCount(`perTask[${i}].c`, task.c);
    if (task.c > task.n) throw new RangeError(`perTask[${i}]: c (${task.c}) exceeds n (${task.n})`);
    if (k > task.n) throw new RangeError(`${name}: k (${k}) exceeds perTask[${i}].n (${task.n})`);
  });
}

/**
 * pass@k: the chance that at least one of k trials drawn without replacement from a task's n recorded
 * trials passes, averaged over tasks (unbiased estimator of Chen et al. 2021, as used by tau-bench):
 *
 *   pass@k = mean over tasks of 1 − C(n − c, k) / C(n, k)
 *
 * The ratio is computed as prod_{i=0..k-1} (n − c − i)/(n − i), never from factorials.
 * Throws a RangeError for an empty list, k < 1, c > n, or k > n for any task.
 */
export function passAtK(perTask: readonly TaskTrials[], k: number): number {
  checkTasks(perTask, k, "passAtK");
  let sum = 0;
  for (const { n, c } of perTask) sum += 1 - chooseRatio(n - c, n, k);
  return sum / perTask.length;
}

/**
 * pass^k ("pass hat k", tau-bench, Yao et al. 2024): the chance that all k trials drawn without
 * replacement from a task's n recorded trials pass, averaged over tasks, a measure of reliability:
 *
 *   pass^k = mean over tasks of C(c, k) / C(n, k)
 *
 * The ratio is computed as prod_{i=0..k-1} (c − i)/(n − i). pass^1 = pass@1 = mean of c/n.
 * Throws a RangeError for an empty list, k < 1, c > n, or k > n for any task.
 */
export function passHatK(perTask: readonly TaskTrials[], k: number): number {
  checkTasks(perTask, k, "passHatK");
  let sum = 0;
  for (const { n, c } of perTask) sum += chooseRatio(c, n, k);
  return sum / perTask.length;
}

/**
 * pass^k with a 95% interval that respects task clusters: the estimate is `passHatK` (each task's
 * C(c, k)/C(n, k) from its own n repeats, averaged over tasks), the interval a percentile bootstrap
 * over tasks (`pairedBootstrap` against 0: a resample draws whole tasks, so a task's repeats stay
 * together and never count as independent evidence). Deterministic for a given seed (default 0).
 * Throws a RangeError as `passHatK` does.
 */
export function passHatKInterval(
  perTask: readonly TaskTrials[],
  k: number,
  options: PairedBootstrapOptions = {},
): IntervalEstimate {
  checkTasks(perTask, k, "passHatKInterval");
  return pairedBootstrap(
    perTask.map(({ n, c }) => ({ a: chooseRatio(c, n, k), b: 0 })),
    options,
  );
}
