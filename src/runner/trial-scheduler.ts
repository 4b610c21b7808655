import type { TrialSpec } from "../core/contracts.ts";

/**
 * Decides where and when the planned trials of a run execute; it starts nothing more once `stopped()`
 * is true (an abort, a lost lease). In-process schedulers call `runOne` (its `slot` names the worker,
 * for per-worker state such as an environment pool) and resolve `"done"` once every trial they started
 * has finished. A queue scheduler hands the trials to workers in other processes, which run them
 * through the same executor; it resolves `"done"` once all are recorded, or `"handed_off"` when it
 * stops following them while they may still be running.
 */
export interface TrialScheduler {
  run(
    todo: readonly TrialSpec[],
    runOne: (spec: TrialSpec, slot: number) => Promise<void>,
    stopped: () => boolean,
  ): Promise<"done" | "handed_off">;
}

/** `concurrency` workers in this process, each taking the next planned trial in manifest order. */
export function poolScheduler(concurrency: number): TrialScheduler {
  const workers = Math.max(1, Math.floor(concurrency));
  return {
    async run(todo, runOne, stopped) {
      let next = 0;
      const worker = async (slot: number) => {
        while (next < todo.length && !stopped()) await runOne(todo[next++], slot);
      };
      await Promise.all(
        Array.from({ length: Math.min(workers, Math.max(1, todo.length)) }, (_, i) => worker(i)),
      );
      return "done";
    },
  };
}

/** One trial at a time, in manifest order (a learner's episodes, a curriculum's draws). */
export const sequentialScheduler = (): TrialScheduler => poolScheduler(1);
