import type { LayerSpec } from "../harness/variant.ts";
import type { Designer, DesignerInput, Diagnosis, LayersProposal, Proposal } from "./types.ts";

/** The tool a diagnosis is about (`facts.tool`), if it names one. */
function toolOf(d: Diagnosis): string | undefined {
  return typeof d.facts?.tool === "string" ? d.facts.tool : undefined;
}

/** Reads of the world (by name) that look like the precondition of a write: approvals, checks, status. */
function preconditionReads(input: DesignerInput): string[] {
  return input.tools
    .map((t) => t.name)
    .filter((n) => /^(get|check|read|find|list)_/.test(n) && /approv|status|shipment|warrant|order/.test(n));
}

function proposal(
  template: string,
  layers: LayerSpec[],
  rationale: string,
  knob?: LayersProposal["knob"],
): LayersProposal {
  return { kind: "layers", template, layers, rationale, ...(knob ? { knob } : {}) };
}

/**
 * The templates, per pattern: layers over the base world that expose the diagnosed weakness at a
 * tunable intensity (the `knob` the rigger bisects on REFINE). Every template uses a built-in fault
 * rule (`src/harness/faults/`), so its variant runs anywhere the gym's harness does.
 */
export function templateProposals(input: DesignerInput): Proposal[] {
  const d = input.diagnosis;
  const tool = toolOf(d);
  switch (d.pattern) {
    case "retry-new-key-after-timeout":
    case "unobserved-claim": {
      if (!tool) return [];
      const lost = proposal(
        "template.lost-reply@1",
        [{ id: "rule.lose-reply-after-commit@1", params: { tool, times: 1 } }],
        `${tool} commits but its reply is lost: the agent must find out what happened before it retries or claims`,
        { layer: 0, param: "times", min: 1, max: 6, integer: true },
      );
      // a timeout before commit exposes a claim (nothing was written) but not a re-key (one write lands)
      if (d.pattern === "retry-new-key-after-timeout") return [lost];
      return [
        lost,
        proposal(
          "template.timeout-before-commit@1",
          [{ id: "rule.timeout-before-commit@1", params: { tool, times: 1 } }],
          `${tool} times out before it commits: a retry is needed, and only a lookup by key tells the cases apart`,
          { layer: 0, param: "times", min: 1, max: 6, integer: true },
        ),
      ];
    }
    case "gave-up-while-recoverable":
    case "ignored-tool-error":
      if (!tool) return [];
      return [
        proposal(
          "template.brief-outage@1",
          [{ id: "rule.unavailable@1", params: { tools: [tool], from: 0, until: 60 } }],
          `${tool} is down for a while at the start, then recovers: waiting and retrying solves it`,
          { layer: 0, param: "until", min: 10, max: 1800 },
        ),
      ];
    case "wait-loop":
      return [
        proposal(
          "template.slow-jobs@1",
          [{ id: "rule.delay-job@1", params: { kinds: [], seconds: 300 } }],
          "background work takes longer: polling without backoff runs out of steps",
          { layer: 0, param: "seconds", min: 30, max: 7200 },
        ),
      ];
    case "write-before-precondition": {
      const reads = preconditionReads(input);
      if (reads.length === 0) return [];
      return [
        proposal(
          "template.stale-precondition@1",
          [{ id: "rule.stale-read@1", params: { tool: reads[0], seconds: 120 } }],
          `${reads[0]} answers from a while ago: the precondition must be read again before the write`,
          { layer: 0, param: "seconds", min: 10, max: 3600 },
        ),
      ];
    }
    default:
      return [];
  }
}

/** The template designer: proposes from `templateProposals`; it has no code to repair. */
export function templateDesigner(): Designer {
  return {
    id: "template",
    propose: async (input) => templateProposals(input),
    repair: async () => [],
  };
}
