import { isError, isEscalation, keyOf, traceSteps, violationCodes } from "../trace-steps.ts";
import type { PatternDetector, PatternHit } from "./pattern-detector.ts";

const CLAIM_CODES = /claim/i;

/**
 * `unobserved-claim`: the agent ends the episode (a terminal call, not an escalation) after its last
 * write of a tool failed, with no later successful write of that tool and no successful call that
 * looks the write up by its key: it claims a result it never observed. Where the verifier has an
 * unverified-claim check (a violation code with `claim`), its verdict is evidence too.
 */
export const unobservedClaim: PatternDetector = {
  pattern: "unobserved-claim",
  axis: "observation",
  summary: "closes as done after a failed write, without observing the write's result",
  detect(record, ctx) {
    const steps = traceSteps(record);
    const end = [...steps].reverse().find((s) => ctx.terminalTools.includes(s.tool) && s.result?.ok);
    const hits: PatternHit[] = [];
    if (end && !steps.some((s) => s.index < end.index && isEscalation(s.tool))) {
      const before = steps.filter((s) => s.index < end.index && ctx.writeTools.includes(s.tool));
      const last = before[before.length - 1];
      if (last && isError(last)) {
        const key = keyOf(last);
        const confirmed = steps.some(
          (s) =>
            s.index > last.index &&
            s.index < end.index &&
            s.result?.ok === true &&
            key !== undefined &&
            Object.values(s.args).includes(key),
        );
        if (!confirmed) hits.push({ steps: [last.index, end.index], facts: { tool: last.tool } });
      }
    }
    if (hits.length === 0 && violationCodes(record).some((c) => CLAIM_CODES.test(c))) {
      const write = [...steps].reverse().find((s) => ctx.writeTools.includes(s.tool));
      const v = record.verdict?.violations.find((x) => CLAIM_CODES.test(x.code));
      hits.push({
        steps: [v && v.step >= 0 ? v.step : (end?.index ?? -1)].filter((n) => n >= 0),
        facts: write ? { tool: write.tool } : {},
      });
    }
    return hits;
  },
};
