import type { ToolDescriptor, TrialRecord } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import { type DetectContext, PATTERN_DETECTORS, type PatternDetector } from "./patterns/index.ts";
import { failed, violationCodes } from "./trace-steps.ts";
import type { Diagnosis, Evidence } from "./types.ts";

export interface DiagnoseOptions {
  /** Default: the whole catalogue (`PATTERN_DETECTORS`). */
  detectors?: readonly PatternDetector[];
  /** Evidence trials kept per diagnosis (default 5). */
  maxEvidence?: number;
}

const KEY_PROPERTY = /idempotency|dedupe|request_key/i;

/**
 * What detectors know of a world, from its spec's tools: the terminal tools, and the write tools
 * (those whose input schema has an idempotency-key property, plus any named in `writes`).
 */
export function detectContext(
  spec: { tools: readonly ToolDescriptor[]; terminalTools: readonly string[] },
  writes: readonly string[] = [],
): DetectContext {
  const keyed = spec.tools.filter((t) => {
    const props = (t.input_schema.properties ?? {}) as JsonObject;
    return Object.keys(props).some((p) => KEY_PROPERTY.test(p));
  });
  return {
    terminalTools: [...spec.terminalTools],
    writeTools: [...new Set([...keyed.map((t) => t.name), ...writes])],
  };
}

interface Group {
  detector: PatternDetector;
  tool: string | undefined;
  facts: JsonObject;
  hits: { record: TrialRecord; steps: number[] }[];
}

/**
 * Diagnoses weaknesses from recorded trials (trajectories and verdicts only): runs every detector on
 * every trial, groups hits by pattern and tool, and keeps the groups seen in at least one failed
 * trial. Evidence comes from failed trials; families, difficulties and violations are those of the
 * evidence trials. Sorted by how many failed trials show the pattern (most first), then catalogue order.
 */
export function diagnose(
  records: readonly TrialRecord[],
  ctx: DetectContext,
  opts: DiagnoseOptions = {},
): Diagnosis[] {
  const detectors = opts.detectors ?? PATTERN_DETECTORS;
  const maxEvidence = opts.maxEvidence ?? 5;
  const groups = new Map<string, Group>();
  const failures = records.filter(failed);
  for (const record of failures) {
    for (const detector of detectors) {
      for (const hit of detector.detect(record, ctx)) {
        const tool = typeof hit.facts.tool === "string" ? hit.facts.tool : undefined;
        const key = `${detector.pattern}\u0000${tool ?? ""}`;
        let g = groups.get(key);
        if (!g) {
          g = { detector, tool, facts: { ...hit.facts }, hits: [] };
          groups.set(key, g);
        }
        if (!g.hits.some((h) => h.record.spec.id === record.spec.id))
          g.hits.push({ record, steps: hit.steps });
      }
    }
  }
  const order = (d: PatternDetector) => detectors.indexOf(d);
  return [...groups.values()]
    .sort((a, b) => b.hits.length - a.hits.length || order(a.detector) - order(b.detector))
    .map((g) => {
      const trials = g.hits.map((h) => h.record);
      const evidence: Evidence[] = g.hits
        .slice(0, maxEvidence)
        .map((h) => ({ trialId: h.record.spec.id, steps: [...h.steps] }));
      const sortedUnique = <T>(xs: T[]) => [...new Set(xs)].sort();
      return {
        pattern: g.detector.pattern,
        axis: g.detector.axis,
        families: sortedUnique(trials.map((r) => r.task.family)),
        difficulties: [...new Set(trials.map((r) => r.task.difficulty))].sort((a, b) => a - b),
        violations: sortedUnique(trials.flatMap(violationCodes)),
        evidence,
        summary: g.tool ? `${g.detector.summary} (${g.tool})` : g.detector.summary,
        facts: g.facts,
        support: { trials: g.hits.length, of: failures.length },
      };
    });
}
