import type { JsonValue } from "../../core/json.ts";
import { errorCode, failed } from "../trace-steps.ts";
import type { PatternDetector, PatternHit } from "./pattern-detector.ts";

const LOOKUP_ERRORS = /not_found|unknown|invalid_argument|mismatch/i;

function strings(v: JsonValue | undefined, out: Set<string>): void {
  if (typeof v === "string" && v.length >= 3) out.add(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x as JsonValue, out);
}

/**
 * `link-data-loss`: in a linked episode (a second task starts mid-trajectory), a call of the second
 * part fails to find something while another value the first part saw was the right one: what A
 * established did not make it into B. Read from the trace: after the hand-off, a lookup error on an
 * argument whose value was never seen before the hand-off, in a trial that failed.
 */
export const linkDataLoss: PatternDetector = {
  pattern: "link-data-loss",
  axis: "start_state",
  summary: "loses what the first task established when the episode hands over to a linked task",
  detect(record) {
    if (!failed(record)) return [];
    const agentSteps = record.steps.filter((s) => !s.setup);
    const boundary = agentSteps.findIndex((s) => s.observation.kind === "task");
    if (boundary < 0) return [];
    const seen = new Set<string>();
    for (const s of agentSteps.slice(0, boundary + 1)) {
      strings(s.action.args, seen);
      strings(s.observation as unknown as JsonValue, seen);
    }
    for (const s of agentSteps.slice(boundary + 1)) {
      if (s.observation.kind !== "tool_result" || s.observation.result.ok) continue;
      const code = s.observation.result.error.code;
      if (!LOOKUP_ERRORS.test(code)) continue;
      const own = new Set<string>();
      strings(s.action.args, own);
      if ([...own].some((v) => !seen.has(v))) {
        const hit: PatternHit = {
          steps: [agentSteps[boundary].index, s.index],
          facts: {
            tool: s.action.tool,
            code:
              errorCode({
                index: s.index,
                tool: s.action.tool,
                args: s.action.args,
                result: s.observation.result,
                t: s.t,
              }) ?? code,
          },
        };
        return [hit];
      }
    }
    return [];
  },
};
