import { isRetryableError, keyOf, subjectOf, traceSteps } from "../trace-steps.ts";
import type { PatternDetector, PatternHit } from "./pattern-detector.ts";

/**
 * `retry-new-key-after-timeout`: a keyed write got a retryable error (it may have committed), and the
 * agent sent the same write on the same subject again under a new idempotency key.
 */
export const retryNewKey: PatternDetector = {
  pattern: "retry-new-key-after-timeout",
  axis: "transition",
  summary: "after a retryable error on a keyed write, retries it on the same subject under a new key",
  detect(record) {
    const steps = traceSteps(record);
    const hits: PatternHit[] = [];
    for (const [i, s] of steps.entries()) {
      const key = keyOf(s);
      if (key === undefined || !isRetryableError(s)) continue;
      const subject = subjectOf(s);
      const again = steps
        .slice(i + 1)
        .find((l) => l.tool === s.tool && subjectOf(l) === subject && keyOf(l) !== key && keyOf(l));
      if (again) {
        const code = s.result && !s.result.ok ? s.result.error.code : "";
        hits.push({ steps: [s.index, again.index], facts: { tool: s.tool, code } });
        break;
      }
    }
    return hits;
  },
};
