import { errorCode, traceSteps } from "../trace-steps.ts";
import type { PatternDetector, PatternHit } from "./pattern-detector.ts";

const VIOLATION = /unauthori[sz]ed|precondition|approval|after_shipment|without_|not_allowed/i;
const REFUSAL = /unauthori[sz]ed|forbidden|not_approved|approval|precondition|permission|not_allowed/i;

/**
 * `write-before-precondition`: a write sent before the state it needs (an approval, a check that the
 * goods have not shipped): the verifier's violation (`unauthorized_write_attempt`,
 * `write_after_shipment`, ...) or the world's refusal of the write for a missing precondition.
 */
export const writeBeforePrecondition: PatternDetector = {
  pattern: "write-before-precondition",
  axis: "action",
  summary: "sends a write before checking (or obtaining) the precondition it needs",
  detect(record, ctx) {
    const steps = traceSteps(record);
    const hits: PatternHit[] = [];
    const refused = steps.find(
      (s) => ctx.writeTools.includes(s.tool) && REFUSAL.test(errorCode(s) ?? "") && !s.result?.ok,
    );
    if (refused) {
      hits.push({ steps: [refused.index], facts: { tool: refused.tool, code: errorCode(refused) ?? "" } });
      return hits;
    }
    const v = record.verdict?.violations.find((x) => VIOLATION.test(x.code));
    if (v) {
      const at = steps.find((s) => s.index === v.step);
      const write =
        at && ctx.writeTools.includes(at.tool) ? at : steps.find((s) => ctx.writeTools.includes(s.tool));
      hits.push({
        steps: v.step >= 0 ? [v.step] : [],
        facts: { ...(write ? { tool: write.tool } : {}), code: v.code },
      });
    }
    return hits;
  },
};
