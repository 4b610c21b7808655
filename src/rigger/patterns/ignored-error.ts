import { errorCode, failed, isEscalation, isRetryableError, traceSteps } from "../trace-steps.ts";
import type { PatternDetector, PatternHit } from "./pattern-detector.ts";

/**
 * `ignored-tool-error`: a non-retryable error on a write the agent then neither retried, corrected,
 * nor escalated: it went on to end the episode as if the call had worked, and the trial failed.
 */
export const ignoredError: PatternDetector = {
  pattern: "ignored-tool-error",
  axis: "observation",
  summary: "carries on after a tool error as if the call had worked",
  detect(record, ctx) {
    if (!failed(record)) return [];
    const steps = traceSteps(record);
    for (const [i, s] of steps.entries()) {
      if (!s.result || s.result.ok || isRetryableError(s) || !ctx.writeTools.includes(s.tool)) continue;
      const later = steps.slice(i + 1);
      if (later.some((l) => l.tool === s.tool || isEscalation(l.tool))) continue;
      const end = later.find((l) => ctx.terminalTools.includes(l.tool));
      if (end) return [{ steps: [s.index, end.index], facts: { tool: s.tool, code: errorCode(s) ?? "" } }];
    }
    return [] as PatternHit[];
  },
};
