import { failed, isWait, traceSteps } from "../trace-steps.ts";
import type { PatternDetector, PatternHit } from "./pattern-detector.ts";

/** Repeats of one call with one answer that make a loop. */
export const WAIT_LOOP_REPEATS = 4;

/**
 * `wait-loop`: the same call (tool and arguments) answered the same way at least four times in a row
 * (waits between them allowed), in a trial that failed: polling that makes no progress.
 */
export const waitLoop: PatternDetector = {
  pattern: "wait-loop",
  axis: "transition",
  summary: "polls the same call with the same answer again and again without changing course",
  detect(record) {
    if (!failed(record)) return [];
    const steps = traceSteps(record).filter((s) => !isWait(s.tool));
    let run: number[] = [];
    let best: { steps: number[]; tool: string } | undefined;
    for (const [i, s] of steps.entries()) {
      const prev = steps[i - 1];
      const same =
        prev &&
        prev.tool === s.tool &&
        JSON.stringify(prev.args) === JSON.stringify(s.args) &&
        JSON.stringify(prev.result) === JSON.stringify(s.result);
      run = same ? [...run, s.index] : [s.index];
      if (run.length >= WAIT_LOOP_REPEATS && (!best || run.length > best.steps.length)) {
        best = { steps: [...run], tool: s.tool };
      }
    }
    const hits: PatternHit[] = best
      ? [{ steps: best.steps, facts: { tool: best.tool, repeats: best.steps.length } }]
      : [];
    return hits;
  },
};
