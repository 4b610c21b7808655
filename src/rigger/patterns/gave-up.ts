import { errorCode, failed, isEscalation, isRetryableError, traceSteps } from "../trace-steps.ts";
import type { PatternDetector, PatternHit } from "./pattern-detector.ts";

/**
 * `gave-up-while-recoverable`: a call got a retryable error (an outage, a rate limit, a timeout) and
 * the agent never called that tool again: it escalated instead, and the trial failed. (Closing as done
 * without escalating is `unobserved-claim`.)
 */
export const gaveUp: PatternDetector = {
  pattern: "gave-up-while-recoverable",
  axis: "transition",
  summary: "gives up (escalates) after a retryable error instead of retrying",
  detect(record) {
    if (!failed(record)) return [];
    const steps = traceSteps(record);
    for (const [i, s] of steps.entries()) {
      if (!isRetryableError(s) || isEscalation(s.tool)) continue;
      const later = steps.slice(i + 1);
      if (later.some((l) => l.tool === s.tool)) continue;
      const end = later.find((l) => isEscalation(l.tool));
      if (end) return [{ steps: [s.index, end.index], facts: { tool: s.tool, code: errorCode(s) ?? "" } }];
    }
    return [] as PatternHit[];
  },
};
