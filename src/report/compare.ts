import type { TrialSpec } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import { canonicalJson } from "../core/hash.ts";
import { manifestRows, type TrialSummary } from "../core/trial-summary.ts";
import { type ComparePairedOptions, comparePaired, type PairedComparison } from "../stats/compare-paired.ts";

/** One side of a comparison: an experiment's manifest and its recorded trials. */
export interface ComparedExperiment {
  id: string;
  manifest: readonly TrialSpec[];
  /** Recorded trials; planned trials without a row count as `missing` (not passed). */
  trials: readonly TrialSummary[];
}

export interface FamilyComparison extends PairedComparison {}

export interface AgentPairComparison extends PairedComparison {
  a: string;
  b: string;
  by_family: Record<string, FamilyComparison>;
}

/** The paired comparison of two experiments, A − B. */
export interface ExperimentComparison extends PairedComparison {
  by_family: Record<string, FamilyComparison>;
  /** One entry per agent pair (A's agent, B's agent); the top level pools them. */
  agents: AgentPairComparison[];
  /** Why the two experiments are not comparable (empty when they are). */
  problems: string[];
  /** What the numbers might hide: missing trials, unpaired trials. */
  warnings: string[];
}

export interface CompareOptions extends ComparePairedOptions {
  /** Compare this agent of A with `agentB` of B (default: agents present in both, or the only one of each). */
  agentA?: string;
  agentB?: string;
  /** Compare what pairs up although the experiments do not share tasks, seeds or budgets. */
  force?: boolean;
}

type Key = string;

/** The task a trial ran: what pairs two trials (everything but the agent). */
const taskKey = (t: {
  world: string;
  variantId?: string;
  family: string;
  difficulty: number;
  seed: number;
  repeat: number;
}): Key => canonicalJson([t.world, t.variantId ?? "", t.family, t.difficulty, t.seed, t.repeat]);

const distinct = <T>(xs: Iterable<T>) => [...new Set(xs)];

function describeSet(values: (string | number)[]): string {
  const sorted = [...values].sort((x, y) =>
    typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y)),
  );
  if (sorted.every((v) => typeof v === "number") && sorted.length > 2) {
    const nums = sorted as number[];
    const contiguous = nums.every((v, i) => i === 0 || v === nums[i - 1] + 1);
    if (contiguous) return `${nums[0]}–${nums[nums.length - 1]}`;
  }
  const shown = sorted.slice(0, 8).join(", ");
  return sorted.length > 8 ? `${shown}, … (${sorted.length})` : shown;
}

/** Why two experiments cannot be compared pair by pair: different tasks, seeds, budgets or parameters. */
export function compatibilityProblems(a: ComparedExperiment, b: ComparedExperiment): string[] {
  const problems: string[] = [];
  const dims: [string, (s: TrialSpec) => string | number][] = [
    ["worlds/variants", (s) => (s.variantId ? `${s.world} (variant ${s.variantId})` : s.world)],
    ["families", (s) => s.family],
    ["difficulties", (s) => s.difficulty],
    ["seeds", (s) => s.seed],
    ["repeats", (s) => s.repeat + 1],
  ];
  for (const [name, get] of dims) {
    const va = distinct(a.manifest.map(get));
    const vb = distinct(b.manifest.map(get));
    const sa = new Set(va);
    const sb = new Set(vb);
    if (va.length !== vb.length || va.some((v) => !sb.has(v)) || vb.some((v) => !sa.has(v))) {
      problems.push(`${name} differ: ${a.id} has ${describeSet(va)}; ${b.id} has ${describeSet(vb)}`);
    }
  }
  if (problems.length === 0) {
    const ka = new Set(a.manifest.map(taskKey));
    const kb = new Set(b.manifest.map(taskKey));
    const onlyA = [...ka].filter((k) => !kb.has(k)).length;
    const onlyB = [...kb].filter((k) => !ka.has(k)).length;
    if (onlyA || onlyB) problems.push(`tasks differ: ${onlyA} only in ${a.id}, ${onlyB} only in ${b.id}`);
  }
  const budgetsA = distinct(a.manifest.map((s) => canonicalJson(s.budget)));
  const budgetsB = distinct(b.manifest.map((s) => canonicalJson(s.budget)));
  if (canonicalJson(budgetsA.sort()) !== canonicalJson(budgetsB.sort())) {
    problems.push(`budgets differ: ${a.id} ${budgetsA.join(" ")}; ${b.id} ${budgetsB.join(" ")}`);
  }
  const paramsA = distinct(a.manifest.map((s) => canonicalJson(s.params ?? {})));
  const paramsB = distinct(b.manifest.map((s) => canonicalJson(s.params ?? {})));
  if (canonicalJson(paramsA.sort()) !== canonicalJson(paramsB.sort())) {
    problems.push(`task parameters differ: ${a.id} ${paramsA.join(" ")}; ${b.id} ${paramsB.join(" ")}`);
  }
  return problems;
}

/** Which agent of A is compared with which agent of B. */
export function pairAgents(
  a: ComparedExperiment,
  b: ComparedExperiment,
  opts: Pick<CompareOptions, "agentA" | "agentB"> = {},
): { pairs: [string, string][]; problems: string[]; warnings: string[] } {
  const agentsA = distinct(a.manifest.map((s) => s.agent.id));
  const agentsB = distinct(b.manifest.map((s) => s.agent.id));
  if (opts.agentA !== undefined || opts.agentB !== undefined) {
    const pa = opts.agentA ?? (agentsA.length === 1 ? agentsA[0] : undefined);
    const pb = opts.agentB ?? (agentsB.length === 1 ? agentsB[0] : undefined);
    const problems: string[] = [];
    if (pa === undefined || !agentsA.includes(pa))
      problems.push(`${a.id} has no agent ${pa ?? "(name one)"} (it has ${agentsA.join(", ")})`);
    if (pb === undefined || !agentsB.includes(pb))
      problems.push(`${b.id} has no agent ${pb ?? "(name one)"} (it has ${agentsB.join(", ")})`);
    return problems.length
      ? { pairs: [], problems, warnings: [] }
      : { pairs: [[pa!, pb!]], problems, warnings: [] };
  }
  const shared = agentsA.filter((x) => agentsB.includes(x));
  if (shared.length > 0) {
    const left = [
      ...agentsA.filter((x) => !shared.includes(x)),
      ...agentsB.filter((x) => !shared.includes(x)),
    ];
    return {
      pairs: shared.map((x) => [x, x]),
      problems: [],
      warnings: left.length ? [`agents in only one experiment are left out: ${left.join(", ")}`] : [],
    };
  }
  if (agentsA.length === 1 && agentsB.length === 1) {
    return { pairs: [[agentsA[0], agentsB[0]]], problems: [], warnings: [] };
  }
  return {
    pairs: [],
    problems: [
      `no agent pairing: ${a.id} has ${agentsA.join(", ")}; ${b.id} has ${agentsB.join(", ")} (name them with --agent-a and --agent-b)`,
    ],
    warnings: [],
  };
}

interface Row {
  family: string;
  passed: boolean;
  missing: boolean;
}

/** One agent's planned trials (recorded or `missing`), by the task they ran. */
function rowsOf(planned: readonly TrialSummary[], agent: string): Map<Key, Row> {
  const rows = new Map<Key, Row>();
  for (const t of planned) {
    if (t.agent !== agent) continue;
    rows.set(taskKey(t), {
      family: t.family,
      passed: t.outcome === "passed",
      missing: t.outcome === "missing",
    });
  }
  return rows;
}

function byFamily(
  pairs: { family: string; a: boolean; b: boolean }[],
  opts: ComparePairedOptions,
): Record<string, FamilyComparison> {
  const families = distinct(pairs.map((p) => p.family));
  const out: Record<string, FamilyComparison> = {};
  for (const f of families)
    out[f] = comparePaired(
      pairs.filter((p) => p.family === f),
      opts,
    );
  return out;
}

/**
 * Pairs the trials of two experiments by (world, variant, family, difficulty, seed, repeat), for each
 * agent pair, and compares pass rates A − B: the 2×2 table, the difference with its confidence interval
 * (Newcombe's paired score interval by default), the exact McNemar test, and the same per family.
 * Passing is the `passed` outcome; every other outcome, `missing` included, is not passing. Refuses
 * (`not_comparable`, a config error) when the experiments do not share tasks, seeds and budgets,
 * unless `force`, which compares what pairs up and says so in `problems`.
 */
export function compareExperiments(
  a: ComparedExperiment,
  b: ComparedExperiment,
  opts: CompareOptions = {},
): ExperimentComparison {
  const agentPlan = pairAgents(a, b, opts);
  const problems = [...compatibilityProblems(a, b), ...agentPlan.problems];
  if (problems.length > 0 && (!opts.force || agentPlan.pairs.length === 0)) {
    throw configError(
      "not_comparable",
      `${a.id} and ${b.id} cannot be compared pair by pair:\n  - ${problems.join("\n  - ")}`,
      { problems },
    );
  }
  const warnings = [...agentPlan.warnings];
  const all: { family: string; a: boolean; b: boolean }[] = [];
  const agents: AgentPairComparison[] = [];
  let missingA = 0;
  let missingB = 0;
  let unpaired = 0;
  const plannedA = manifestRows(a.manifest, a.trials).rows;
  const plannedB = manifestRows(b.manifest, b.trials).rows;
  for (const [agentA, agentB] of agentPlan.pairs) {
    const ra = rowsOf(plannedA, agentA);
    const rb = rowsOf(plannedB, agentB);
    const pairs: { family: string; a: boolean; b: boolean }[] = [];
    for (const [key, x] of ra) {
      const y = rb.get(key);
      if (!y) {
        unpaired++;
        continue;
      }
      if (x.missing) missingA++;
      if (y.missing) missingB++;
      pairs.push({ family: x.family, a: x.passed, b: y.passed });
    }
    unpaired += [...rb.keys()].filter((k) => !ra.has(k)).length;
    if (pairs.length === 0) continue;
    agents.push({ a: agentA, b: agentB, ...comparePaired(pairs, opts), by_family: byFamily(pairs, opts) });
    all.push(...pairs);
  }
  if (all.length === 0) {
    throw configError("nothing_to_compare", `${a.id} and ${b.id} have no trials in common to pair`);
  }
  if (missingA)
    warnings.push(
      `${a.id}: ${missingA} paired trial(s) never ran (missing, counted as not passed); resume it`,
    );
  if (missingB)
    warnings.push(
      `${b.id}: ${missingB} paired trial(s) never ran (missing, counted as not passed); resume it`,
    );
  if (unpaired)
    warnings.push(`${unpaired} trial(s) have no partner in the other experiment and are left out`);
  return { ...comparePaired(all, opts), by_family: byFamily(all, opts), agents, problems, warnings };
}

/** The normative `compare --json` document: the pooled table, difference, McNemar and per family. */
export function comparisonJson(c: ExperimentComparison) {
  const table = (p: PairedComparison) => ({
    pairs: p.pairs,
    both_pass: p.both_pass,
    a_only: p.a_only,
    b_only: p.b_only,
    neither: p.neither,
    difference: p.difference,
    mcnemar: p.mcnemar,
  });
  const families = (f: Record<string, FamilyComparison>) =>
    Object.fromEntries(Object.entries(f).map(([k, v]) => [k, table(v)]));
  return {
    ...table(c),
    by_family: families(c.by_family),
    ...(c.agents.length > 1
      ? {
          by_agent: Object.fromEntries(
            c.agents.map((x) => [`${x.a} vs ${x.b}`, { ...table(x), by_family: families(x.by_family) }]),
          ),
        }
      : {}),
  };
}
