/**
 * Experiment 1, *curriculum vs uniform*: from the stored history of curriculum runs that trained a
 * learner (one run per world × strategy × seed), the learning curves (the frozen pass rate on the
 * regression split and on the held-out families at each evaluation, mean over seeds with a 95%
 * interval over seeds), the episodes each run needed to reach the target pass rate on the regression
 * split (censored at the budget when it never did), the ratio of each strategy to the baseline (paired
 * by seed), and the sampling share per family and per difficulty over time. Pure: no store, no clock.
 */
import { pairedBootstrap } from "../stats/paired-bootstrap.ts";

/** One evaluation of a split after `after_episode` episodes, as the curriculum stores it. */
export interface EvaluationPoint {
  after_episode: number;
  /** The split's tasks. */
  planned: number;
  passed: number;
  /** Tasks that ended with an infrastructure outcome: out of the pass rate. */
  infra?: number;
  /** Per family: tasks passed and tasks counted (infrastructure outcomes left out). */
  families?: Record<string, { passed: number; counted: number }>;
}

/** One curriculum run of a learner: its settings and its stored history. */
export interface StrategyRun {
  world: string;
  strategy: string;
  seed: number;
  /** The run's episode budget. */
  budget: number;
  evalEvery: number;
  /** The episodes in order (infrastructure attempts left out): what the curriculum sampled. */
  episodes: readonly { index: number; family: string; difficulty: number }[];
  regression: readonly EvaluationPoint[];
  heldout: readonly EvaluationPoint[];
}

export interface ComparisonOptions {
  /** The strategy every other one is compared with (default `uniform`). */
  baseline?: string;
  /** The strategy flagged as the default in the result (the curriculum's default). */
  defaultStrategy?: string;
  /** The regression pass rate a run must reach (default 0.8). */
  target?: number;
  /** Episodes per window of the sampling shares (default: each run's `evalEvery`). */
  window?: number;
  /** Bootstrap resamples (default 10000) and seed (default 0). */
  iterations?: number;
  bootstrapSeed?: number;
}

/** A mean over seeds with its 95% percentile-bootstrap interval over seeds. */
export interface SeedMean {
  mean: number;
  lo: number;
  hi: number;
  /** Seeds that have this point. */
  n: number;
}

export interface CurvePoint extends SeedMean {
  after: number;
}

export interface EpisodesToTarget {
  seed: number;
  /** The first evaluation at or above the target; when censored, the budget (a lower bound). */
  episodes: number;
  /** Never reached within the budget: `episodes` is only a lower bound. */
  censored: boolean;
}

export interface ShareWindow {
  from: number;
  to: number;
  /** Share of the window's episodes per family (mean over seeds). */
  family: Record<string, number>;
  /** Share of the window's episodes per difficulty (mean over seeds). */
  difficulty: Record<string, number>;
}

export interface StrategyCurves {
  strategy: string;
  default: boolean;
  seeds: number[];
  regression: CurvePoint[];
  heldout: CurvePoint[];
  /** Per family of the regression split: its pass rate at each evaluation (mean over seeds). */
  families: Record<string, CurvePoint[]>;
  episodesToTarget: EpisodesToTarget[];
  /** Runs that reached the target / runs. */
  reached: number;
  /**
   * The normalised area under the regression curve: the mean of its pass rates over the evaluation
   * points (0..1), per seed and over seeds.
   */
  auc: SeedMean & { perSeed: { seed: number; auc: number }[] };
  shares: ShareWindow[];
}

/** A paired ratio (strategy ÷ baseline), as the geometric mean of the per-seed ratios. */
export interface PairedRatio {
  /** exp(mean log ratio) and its 95% interval (paired bootstrap over seeds); null when not computable. */
  estimate: number | null;
  lo: number | null;
  hi: number | null;
  pairs: number;
  /** Why there is no estimate (a zero value has no log ratio). */
  reason?: string;
}

export interface StrategyVsBaseline {
  strategy: string;
  baseline: string;
  default: boolean;
  /**
   * Episodes to the target, strategy ÷ baseline (< 1: the strategy got there sooner). A censored run
   * counts with the budget, so a pair with a censored side is a bound, and a pair censored on both
   * sides is 1 whatever happened: see `censoredPairs` / `bothCensored`.
   */
  episodesToTarget: PairedRatio & { censoredPairs: number; bothCensored: number };
  /** Area under the regression curve, strategy ÷ baseline (> 1: the strategy's curve is higher). */
  auc: PairedRatio;
  /** Area under the regression curve, strategy − baseline (paired bootstrap over seeds). */
  aucDifference: { estimate: number; lo: number; hi: number; pairs: number };
}

export interface WorldComparison {
  world: string;
  budget: number;
  evalEvery: number;
  seeds: number[];
  strategies: StrategyCurves[];
  comparisons: StrategyVsBaseline[];
}

export interface StrategyComparison {
  schemaVersion: 1;
  target: number;
  confidence: number;
  baseline: string;
  worlds: WorldComparison[];
}

const CONFIDENCE = 0.95;

/** A split's pass rate at one evaluation (infrastructure outcomes out); undefined with nothing counted. */
export function passRateOf(point: EvaluationPoint): number | undefined {
  const counted = point.planned - (point.infra ?? 0);
  return counted > 0 ? point.passed / counted : undefined;
}

function bootstrapOptions(opts: ComparisonOptions) {
  return { iterations: opts.iterations ?? 10_000, seed: opts.bootstrapSeed ?? 0, confidence: CONFIDENCE };
}

/** Mean over seeds with a percentile-bootstrap interval over seeds (a one-sample bootstrap: b = 0). */
function seedMean(values: readonly number[], opts: ComparisonOptions): SeedMean {
  if (!values.length) return { mean: Number.NaN, lo: Number.NaN, hi: Number.NaN, n: 0 };
  const r = pairedBootstrap(
    values.map((a) => ({ a, b: 0 })),
    bootstrapOptions(opts),
  );
  return { mean: r.estimate, lo: r.lo, hi: r.hi, n: values.length };
}

/** Curve points: at each evaluation episode, the values of the runs that have it. */
function curve(
  runs: readonly StrategyRun[],
  pick: (run: StrategyRun) => readonly { after: number; value: number | undefined }[],
  opts: ComparisonOptions,
): CurvePoint[] {
  const byAfter = new Map<number, number[]>();
  for (const run of runs)
    for (const p of pick(run)) {
      if (p.value === undefined) continue;
      const list = byAfter.get(p.after) ?? [];
      list.push(p.value);
      byAfter.set(p.after, list);
    }
  return [...byAfter.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([after, values]) => ({ after, ...seedMean(values, opts) }));
}

const rates = (points: readonly EvaluationPoint[]) =>
  points.map((p) => ({ after: p.after_episode, value: passRateOf(p) }));

/** The first evaluation whose regression pass rate reaches `target`; censored at the budget otherwise. */
export function episodesToTarget(run: StrategyRun, target: number): EpisodesToTarget {
  const hit = [...run.regression]
    .sort((a, b) => a.after_episode - b.after_episode)
    .find((p) => (passRateOf(p) ?? -1) >= target);
  return hit
    ? { seed: run.seed, episodes: hit.after_episode, censored: false }
    : { seed: run.seed, episodes: run.budget, censored: true };
}

/** The mean of a run's regression pass rates over its evaluations (0 with none). */
export function areaUnderCurve(run: StrategyRun): number {
  const values = rates(run.regression)
    .map((p) => p.value)
    .filter((v): v is number => v !== undefined);
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : 0;
}

/** Per window of `width` episodes, each family's and difficulty's share of its episodes. */
export function samplingShares(
  episodes: StrategyRun["episodes"],
  width: number,
): { from: number; to: number; family: Record<string, number>; difficulty: Record<string, number> }[] {
  const out: ReturnType<typeof samplingShares> = [];
  const last = episodes.reduce((m, e) => Math.max(m, e.index), 0);
  for (let from = 1; from <= last; from += width) {
    const slice = episodes.filter((e) => e.index >= from && e.index < from + width);
    const family: Record<string, number> = {};
    const difficulty: Record<string, number> = {};
    for (const e of slice) {
      family[e.family] = (family[e.family] ?? 0) + 1 / slice.length;
      difficulty[String(e.difficulty)] = (difficulty[String(e.difficulty)] ?? 0) + 1 / slice.length;
    }
    out.push({ from, to: Math.min(from + width - 1, last), family, difficulty });
  }
  return out;
}

/** The mean of each name's share over the runs' windows (a name a run never sampled counts as 0). */
function meanShares(runs: readonly StrategyRun[], width: number): ShareWindow[] {
  const perRun = runs.map((r) => samplingShares(r.episodes, width));
  const windows = Math.max(0, ...perRun.map((w) => w.length));
  const out: ShareWindow[] = [];
  for (let i = 0; i < windows; i++) {
    const present = perRun.map((w) => w[i]).filter((w) => w !== undefined);
    const mean = (pick: (w: (typeof present)[number]) => Record<string, number>) => {
      const names = [...new Set(present.flatMap((w) => Object.keys(pick(w))))].sort();
      return Object.fromEntries(
        names.map((n) => [n, present.reduce((s, w) => s + (pick(w)[n] ?? 0), 0) / present.length]),
      );
    };
    out.push({
      from: present[0].from,
      to: Math.max(...present.map((w) => w.to)),
      family: mean((w) => w.family),
      difficulty: mean((w) => w.difficulty),
    });
  }
  return out;
}

function familyCurves(runs: readonly StrategyRun[], opts: ComparisonOptions): Record<string, CurvePoint[]> {
  const names = [
    ...new Set(runs.flatMap((r) => r.regression.flatMap((p) => Object.keys(p.families ?? {})))),
  ].sort();
  return Object.fromEntries(
    names.map((f) => [
      f,
      curve(
        runs,
        (r) =>
          r.regression.map((p) => {
            const c = p.families?.[f];
            return { after: p.after_episode, value: c && c.counted > 0 ? c.passed / c.counted : undefined };
          }),
        opts,
      ),
    ]),
  );
}

function strategyCurves(
  strategy: string,
  runs: readonly StrategyRun[],
  width: number,
  opts: ComparisonOptions,
): StrategyCurves {
  const target = opts.target ?? 0.8;
  const ordered = [...runs].sort((a, b) => a.seed - b.seed);
  const toTarget = ordered.map((r) => episodesToTarget(r, target));
  const perSeed = ordered.map((r) => ({ seed: r.seed, auc: areaUnderCurve(r) }));
  return {
    strategy,
    default: strategy === opts.defaultStrategy,
    seeds: ordered.map((r) => r.seed),
    regression: curve(ordered, (r) => rates(r.regression), opts),
    heldout: curve(ordered, (r) => rates(r.heldout), opts),
    families: familyCurves(ordered, opts),
    episodesToTarget: toTarget,
    reached: toTarget.filter((t) => !t.censored).length,
    auc: {
      ...seedMean(
        perSeed.map((p) => p.auc),
        opts,
      ),
      perSeed,
    },
    shares: meanShares(ordered, width),
  };
}

/** exp of the paired bootstrap of log(a) − log(b): the geometric mean ratio a/b and its interval. */
export function pairedRatio(
  pairs: readonly { a: number; b: number }[],
  opts: ComparisonOptions,
): PairedRatio {
  if (!pairs.length) return { estimate: null, lo: null, hi: null, pairs: 0, reason: "no seed in both arms" };
  if (pairs.some((p) => !(p.a > 0) || !(p.b > 0)))
    return {
      estimate: null,
      lo: null,
      hi: null,
      pairs: pairs.length,
      reason: "a seed has a value of 0 on one side (no log ratio); see the difference",
    };
  const r = pairedBootstrap(
    pairs.map((p) => ({ a: Math.log(p.a), b: Math.log(p.b) })),
    bootstrapOptions(opts),
  );
  return { estimate: Math.exp(r.estimate), lo: Math.exp(r.lo), hi: Math.exp(r.hi), pairs: pairs.length };
}

function versus(s: StrategyCurves, base: StrategyCurves, opts: ComparisonOptions): StrategyVsBaseline {
  const seeds = s.seeds.filter((x) => base.seeds.includes(x));
  const at = <T extends { seed: number }>(list: readonly T[], seed: number) =>
    list.find((x) => x.seed === seed) as T;
  const episodes = seeds.map((seed) => ({
    a: at(s.episodesToTarget, seed),
    b: at(base.episodesToTarget, seed),
  }));
  const aucs = seeds.map((seed) => ({ a: at(s.auc.perSeed, seed).auc, b: at(base.auc.perSeed, seed).auc }));
  const difference = aucs.length
    ? pairedBootstrap(aucs, bootstrapOptions(opts))
    : { estimate: Number.NaN, lo: Number.NaN, hi: Number.NaN };
  return {
    strategy: s.strategy,
    baseline: base.strategy,
    default: s.default,
    episodesToTarget: {
      ...pairedRatio(
        episodes.map((p) => ({ a: p.a.episodes, b: p.b.episodes })),
        opts,
      ),
      censoredPairs: episodes.filter((p) => p.a.censored || p.b.censored).length,
      bothCensored: episodes.filter((p) => p.a.censored && p.b.censored).length,
    },
    auc: pairedRatio(aucs, opts),
    aucDifference: { ...difference, pairs: aucs.length },
  };
}

/** What censoring does to an episodes-to-target ratio, in words ("" when no pair is censored). */
export function censoringNote(r: StrategyVsBaseline["episodesToTarget"]): string {
  if (!r.censoredPairs) return "";
  if (r.bothCensored === r.pairs) return "every pair censored on both sides: no information";
  return `${r.censoredPairs}/${r.pairs} pairs censored, counted at the budget: a bound${r.bothCensored ? `; ${r.bothCensored} on both sides` : ""}`;
}

/**
 * Compares the strategies of each world: curves, episodes to the target, areas, shares, and each
 * strategy against the baseline (paired by seed). Worlds and strategies keep the runs' first-seen order.
 */
export function compareStrategies(
  runs: readonly StrategyRun[],
  opts: ComparisonOptions = {},
): StrategyComparison {
  const baseline = opts.baseline ?? "uniform";
  const worlds = [...new Set(runs.map((r) => r.world))];
  return {
    schemaVersion: 1,
    target: opts.target ?? 0.8,
    confidence: CONFIDENCE,
    baseline,
    worlds: worlds.map((world) => {
      const mine = runs.filter((r) => r.world === world);
      const evalEvery = mine[0].evalEvery;
      const width = opts.window ?? evalEvery;
      const strategies = [...new Set(mine.map((r) => r.strategy))].map((s) =>
        strategyCurves(
          s,
          mine.filter((r) => r.strategy === s),
          width,
          opts,
        ),
      );
      const base = strategies.find((s) => s.strategy === baseline);
      return {
        world,
        budget: Math.max(...mine.map((r) => r.budget)),
        evalEvery,
        seeds: [...new Set(mine.map((r) => r.seed))].sort((a, b) => a - b),
        strategies,
        comparisons: base ? strategies.filter((s) => s !== base).map((s) => versus(s, base, opts)) : [],
      };
    }),
  };
}
