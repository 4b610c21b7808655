/**
 * The arms' outcomes on the same tasks, seeds and budgets, compared by family cluster: a skill arm's
 * trials of one family share its tasks, and a deterministic agent repeats itself on a task, so the
 * independent unit is the family, not the trial. Intervals come from `pairedBootstrap` over families
 * (each family the mean of its trials, pooled over difficulties, evaluation seeds and induction seeds);
 * the per-pair Newcombe interval is kept beside it for comparison only.
 */
import type { TrialSummary } from "../core/trial-summary.ts";
import { newcombePairedInterval } from "../stats/newcombe-paired-interval.ts";
import { pairedBootstrap } from "../stats/paired-bootstrap.ts";
import type { Arm, ArmComparison, ArmRate, ClusteredInterval, EvaluationSet } from "./learn-result.ts";

/** Which arm (and, for a skill arm, which induction seed's bank) an evaluation agent plays. */
export interface ArmOfAgent {
  arm: Arm;
  /** The induction seed of a skill arm's bank; absent for the no-skill arm. */
  seed?: number;
}

export interface ClusterOptions {
  confidence: number;
  /** Bootstrap resamples (default 10000). */
  iterations?: number;
}

/** One unit of the evaluation: a task (family, difficulty, seed, repeat) every arm played. */
interface Unit {
  family: string;
  none?: boolean;
  original: Map<number, boolean>;
  variants: Map<number, boolean>;
}

const unitKey = (t: TrialSummary) =>
  JSON.stringify([t.world, t.variantId ?? "", t.family, t.difficulty, t.seed, t.repeat]);

/** A paired observation of A and B (1 = passed) in a family, for an induction seed. */
export interface ClusteredPair {
  family: string;
  seed: number;
  a: boolean;
  b: boolean;
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

function byFamily(pairs: readonly ClusteredPair[]): Map<string, ClusteredPair[]> {
  const out = new Map<string, ClusteredPair[]>();
  for (const p of pairs) out.set(p.family, [...(out.get(p.family) ?? []), p]);
  return out;
}

/** The family-cluster bootstrap interval of mean(a) − mean(b) (families weighted equally). */
export function clusteredDifference(
  pairs: readonly ClusteredPair[],
  options: ClusterOptions,
): ClusteredInterval {
  if (pairs.length === 0) return { estimate: 0, lo: 0, hi: 0, clusters: 0 };
  const families = [...byFamily(pairs).values()].map((ps) => ({
    a: mean(ps.map((p) => (p.a ? 1 : 0))),
    b: mean(ps.map((p) => (p.b ? 1 : 0))),
  }));
  const interval = pairedBootstrap(families, {
    confidence: options.confidence,
    iterations: options.iterations ?? 10_000,
    seed: 0,
  });
  return { ...interval, clusters: families.length };
}

/** Compares A and B over clustered pairs: the clustered interval, per family, per seed, and per pair. */
export function compareClustered(pairs: readonly ClusteredPair[], options: ClusterOptions): ArmComparison {
  const diff = (ps: readonly ClusteredPair[]) => mean(ps.map((p) => (p.a ? 1 : 0) - (p.b ? 1 : 0)));
  const table = { both_pass: 0, a_only: 0, b_only: 0, neither: 0 };
  for (const p of pairs) {
    if (p.a && p.b) table.both_pass++;
    else if (p.a) table.a_only++;
    else if (p.b) table.b_only++;
    else table.neither++;
  }
  const seeds = [...new Set(pairs.map((p) => p.seed))].sort((x, y) => x - y);
  const newcombe = pairs.length ? newcombePairedInterval(table, options.confidence) : { lo: 0, hi: 0 };
  return {
    difference: clusteredDifference(pairs, options),
    perFamily: [...byFamily(pairs)].map(([family, ps]) => ({
      family,
      pairs: ps.length,
      difference: diff(ps),
    })),
    perSeed: seeds.map((seed) => {
      const ps = pairs.filter((p) => p.seed === seed);
      return { seed, pairs: ps.length, difference: diff(ps) };
    }),
    perPair: { pairs: pairs.length, ...table, newcombe: [newcombe.lo, newcombe.hi] },
  };
}

/** `rows`: one per planned trial (missing ones count as not passed); `agents`: the arm of each agent id. */
export function evaluationSet(
  name: EvaluationSet["name"],
  families: readonly string[],
  rows: readonly TrialSummary[],
  agents: Record<string, ArmOfAgent>,
  options: ClusterOptions,
): EvaluationSet {
  const units = new Map<string, Unit>();
  for (const t of rows) {
    if (!families.includes(t.family)) continue;
    const of = agents[t.agent];
    if (!of) continue;
    const key = unitKey(t);
    const u: Unit = units.get(key) ?? { family: t.family, original: new Map(), variants: new Map() };
    const passed = t.outcome === "passed";
    if (of.arm === "none") u.none = passed;
    else u[of.arm].set(of.seed ?? 0, passed);
    units.set(key, u);
  }
  const all = [...units.values()];
  const seeds = [...new Set(all.flatMap((u) => [...u.original.keys(), ...u.variants.keys()]))].sort(
    (x, y) => x - y,
  );
  const outcomes = (u: Unit, arm: Arm): { seed: number; passed: boolean }[] =>
    arm === "none"
      ? u.none === undefined
        ? []
        : [{ seed: 0, passed: u.none }]
      : [...u[arm]].map(([seed, passed]) => ({ seed, passed }));
  const rate = (arm: Arm): ArmRate => {
    // a rate is a difference against nothing: b = 0
    const pairs = all.flatMap((u) =>
      outcomes(u, arm).map((o) => ({ family: u.family, seed: o.seed, a: o.passed, b: false })),
    );
    return {
      passed: pairs.filter((p) => p.a).length,
      planned: pairs.length,
      rate: clusteredDifference(pairs, options),
    };
  };
  const versusNone = (arm: "original" | "variants"): ClusteredPair[] =>
    all.flatMap((u) =>
      u.none === undefined
        ? []
        : [...u[arm]].map(([seed, passed]) => ({ family: u.family, seed, a: passed, b: u.none === true })),
    );
  const variantsVsOriginal: ClusteredPair[] = all.flatMap((u) =>
    seeds
      .filter((s) => u.variants.has(s) && u.original.has(s))
      .map((seed) => ({
        family: u.family,
        seed,
        a: u.variants.get(seed) === true,
        b: u.original.get(seed) === true,
      })),
  );
  return {
    name,
    families: [...families],
    arms: { none: rate("none"), original: rate("original"), variants: rate("variants") },
    comparisons: {
      variantsVsNone: compareClustered(versusNone("variants"), options),
      originalVsNone: compareClustered(versusNone("original"), options),
      variantsVsOriginal: compareClustered(variantsVsOriginal, options),
    },
  };
}
