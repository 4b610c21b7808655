import type { Outcome } from "../../core/contracts.ts";
import type { TrialSummary } from "../../store/store.ts";

/** One trial as the page's tables and filters see it (the full record is inflated on demand). */
export interface PageRow {
  id: string;
  /** Manifest index. */
  i: number;
  agent: string;
  world: string;
  /** Variant id, or "" for the bare world. */
  variant: string;
  family: string;
  d: number;
  seed: number;
  rep: number;
  outcome: Outcome;
  reason: string;
  score: number | null;
  /** Violation codes, in order. */
  v: string[];
  steps: number;
  /** Virtual seconds. */
  vt: number;
  tokens: number;
  cost: number;
  wall: number;
  /** [chunk, offset] of the embedded trajectory; absent for missing or omitted trials. */
  at?: [number, number];
}

export function pageRows(rows: TrialSummary[], where: Map<string, [number, number]>): PageRow[] {
  return rows.map((r) => {
    const at = where.get(r.trialId);
    return {
      id: r.trialId,
      i: r.index,
      agent: r.agent,
      world: r.world,
      variant: r.variantId ?? "",
      family: r.family,
      d: r.difficulty,
      seed: r.seed,
      rep: r.repeat,
      outcome: r.outcome,
      reason: r.reason,
      score: r.score,
      v: r.violations,
      steps: r.stats.steps,
      vt: r.stats.virtualSeconds,
      tokens: r.stats.tokensIn + r.stats.tokensOut,
      cost: r.stats.costUsd,
      wall: r.stats.wallMs,
      ...(at ? { at } : {}),
    };
  });
}

/** The q-quantile (0..1) of sorted numbers, by linear interpolation. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}
