/**
 * compareStrategies on hand-built curriculum histories: episodes to the target (first evaluation at
 * or above it; censored at the budget when never), infrastructure outcomes out of the pass rate, the
 * paired-by-seed ratio (a constant per-seed ratio has a zero-width interval however much the seeds
 * differ), censoring counted, a zero area has no log ratio, the sampling shares per window.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  censoringNote,
  compareStrategies,
  type EvaluationPoint,
  episodesToTarget,
  pairedRatio,
  passRateOf,
  type StrategyRun,
  samplingShares,
} from "../../src/train/index.ts";

/** Evaluations every 100 episodes with these regression pass rates (out of 10 tasks). */
function points(rates: readonly number[], every = 100): EvaluationPoint[] {
  return rates.map((r, i) => ({ after_episode: (i + 1) * every, planned: 10, passed: Math.round(10 * r) }));
}

function run(
  strategy: string,
  seed: number,
  regression: readonly number[],
  extra: Partial<StrategyRun> = {},
) {
  const budget = regression.length * 100;
  return {
    world: "w@1",
    strategy,
    seed,
    budget,
    evalEvery: 100,
    episodes: Array.from({ length: budget }, (_, i) => ({
      index: i + 1,
      family: i % 2 ? "b" : "a",
      difficulty: 1,
    })),
    regression: points(regression),
    heldout: points(regression.map((r) => r / 2)),
    ...extra,
  } satisfies StrategyRun;
}

test("episodes to the target: the first evaluation at or above it, else the budget, censored", () => {
  assert.deepEqual(episodesToTarget(run("x", 1, [0.2, 0.5, 0.8, 0.6]), 0.8), {
    seed: 1,
    episodes: 300,
    censored: false,
  });
  assert.deepEqual(episodesToTarget(run("x", 2, [0.2, 0.7, 0.7, 0.7]), 0.8), {
    seed: 2,
    episodes: 400,
    censored: true,
  });
  // out of order in the history: still the earliest evaluation that reaches it
  const shuffled = run("x", 3, [0.1, 0.9, 0.9]);
  shuffled.regression = [...shuffled.regression].reverse();
  assert.equal(episodesToTarget(shuffled, 0.8).episodes, 200);
});

test("infrastructure outcomes are out of the pass rate (and of the target)", () => {
  assert.equal(passRateOf({ after_episode: 100, planned: 10, passed: 8, infra: 2 }), 1);
  assert.equal(passRateOf({ after_episode: 100, planned: 2, passed: 0, infra: 2 }), undefined);
  const r = run("x", 1, [0.5]);
  r.regression = [{ after_episode: 100, planned: 10, passed: 7, infra: 2 }];
  assert.equal(episodesToTarget(r, 0.8).censored, false);
});

test("the ratio to the baseline is paired by seed: a constant per-seed ratio has no spread", () => {
  // seeds differ tenfold in how fast they learn, but the default is always twice as fast
  const runs = [
    run("learnability", 1, [0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]),
    run("uniform", 1, [0.1, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]),
    run("learnability", 2, [0.1, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]),
    run("uniform", 2, [0.1, 0.1, 0.1, 0.9, 0.9, 0.9, 0.9, 0.9]),
    run("learnability", 3, [0.1, 0.1, 0.1, 0.9, 0.9, 0.9, 0.9, 0.9]),
    run("uniform", 3, [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.9]),
  ];
  const c = compareStrategies(runs, { defaultStrategy: "learnability", iterations: 2000 });
  assert.equal(c.schemaVersion, 1);
  const [w] = c.worlds;
  assert.deepEqual(
    w.strategies.map((s) => [s.strategy, s.default, s.episodesToTarget.map((t) => t.episodes)]),
    [
      ["learnability", true, [100, 200, 400]],
      ["uniform", false, [200, 400, 800]],
    ],
  );
  const [v] = w.comparisons;
  assert.equal(v.strategy, "learnability");
  assert.equal(v.baseline, "uniform");
  assert.equal(v.episodesToTarget.pairs, 3);
  assert.ok(Math.abs((v.episodesToTarget.estimate as number) - 0.5) < 1e-12);
  assert.ok(Math.abs((v.episodesToTarget.lo as number) - 0.5) < 1e-12);
  assert.ok(Math.abs((v.episodesToTarget.hi as number) - 0.5) < 1e-12);
  assert.equal(v.episodesToTarget.censoredPairs, 0);
  // the curve is higher: the area ratio is above 1, its difference positive
  assert.ok((v.auc.estimate as number) > 1);
  assert.ok(v.aucDifference.lo > 0);
});

test("the paired ratio's interval widens when the per-seed ratios differ, and holds the estimate", () => {
  const r = pairedRatio(
    [
      { a: 100, b: 400 },
      { a: 300, b: 300 },
      { a: 200, b: 800 },
      { a: 400, b: 200 },
      { a: 100, b: 500 },
    ],
    { iterations: 4000 },
  );
  assert.ok((r.lo as number) < (r.estimate as number) && (r.estimate as number) < (r.hi as number));
  // the geometric mean of 1/4, 1, 1/4, 2, 1/5
  assert.ok(Math.abs((r.estimate as number) - (0.25 * 1 * 0.25 * 2 * 0.2) ** (1 / 5)) < 1e-9);
  assert.ok((r.hi as number) < 2 && (r.lo as number) > 0.1);
});

test("censored runs count with the budget and are flagged; a zero area has no log ratio", () => {
  const runs = [
    run("learnability", 1, [0, 0, 0, 0]),
    run("uniform", 1, [0.2, 0.9, 0.9, 0.9]),
    run("learnability", 2, [0, 0, 0, 0]),
    run("uniform", 2, [0, 0, 0, 0.5]),
  ];
  const [w] = compareStrategies(runs, { iterations: 500 }).worlds;
  const [learn, uniform] = w.strategies;
  assert.deepEqual(
    learn.episodesToTarget.map((t) => [t.episodes, t.censored]),
    [
      [400, true],
      [400, true],
    ],
  );
  assert.equal(learn.reached, 0);
  assert.equal(uniform.reached, 1);
  const [v] = w.comparisons;
  assert.equal(v.episodesToTarget.censoredPairs, 2);
  assert.equal(v.episodesToTarget.bothCensored, 1);
  assert.equal(
    censoringNote(v.episodesToTarget),
    "2/2 pairs censored, counted at the budget: a bound; 1 on both sides",
  );
  assert.equal(
    censoringNote({ ...v.episodesToTarget, censoredPairs: 2, bothCensored: 2 }),
    "every pair censored on both sides: no information",
  );
  // seed 1: 400 (a bound) / 200; seed 2: 400 / 400
  assert.ok(Math.abs((v.episodesToTarget.estimate as number) - Math.sqrt(2)) < 1e-9);
  assert.equal(v.auc.estimate, null);
  assert.match(v.auc.reason ?? "", /0/);
  assert.ok(v.aucDifference.estimate < 0);
});

test("curves: mean over seeds at each evaluation, with an interval over seeds", () => {
  const runs = [run("uniform", 1, [0.2, 0.4]), run("uniform", 2, [0.4, 0.8]), run("uniform", 3, [0.6, 0.6])];
  const [w] = compareStrategies(runs, { iterations: 1000 }).worlds;
  const [s] = w.strategies;
  assert.deepEqual(
    s.regression.map((p) => [p.after, Number(p.mean.toFixed(6)), p.n]),
    [
      [100, 0.4, 3],
      [200, 0.6, 3],
    ],
  );
  for (const p of s.regression) assert.ok(p.lo <= p.mean && p.mean <= p.hi && p.lo < p.hi);
  assert.deepEqual(
    s.heldout.map((p) => Number(p.mean.toFixed(6))),
    [0.2, 0.3],
  );
  assert.equal(w.comparisons.length, 0, "no baseline among the strategies: no ratio");
});

test("sampling shares: per window of episodes, each family's and difficulty's share", () => {
  const episodes = [
    { index: 1, family: "a", difficulty: 1 },
    { index: 2, family: "a", difficulty: 2 },
    { index: 3, family: "b", difficulty: 1 },
    { index: 4, family: "a", difficulty: 1 },
    { index: 5, family: "b", difficulty: 3 },
  ];
  assert.deepEqual(samplingShares(episodes, 4), [
    { from: 1, to: 4, family: { a: 0.75, b: 0.25 }, difficulty: { 1: 0.75, 2: 0.25 } },
    { from: 5, to: 5, family: { b: 1 }, difficulty: { 3: 1 } },
  ]);
  // over seeds: the mean share, a family a seed never sampled counting 0
  const one = run("uniform", 1, [0.5], {
    episodes: [
      { index: 1, family: "a", difficulty: 1 },
      { index: 2, family: "a", difficulty: 1 },
    ],
  });
  const two = run("uniform", 2, [0.5], {
    episodes: [
      { index: 1, family: "b", difficulty: 1 },
      { index: 2, family: "a", difficulty: 1 },
    ],
  });
  const [w] = compareStrategies([one, two], { window: 2, iterations: 100 }).worlds;
  assert.deepEqual(w.strategies[0].shares, [
    { from: 1, to: 2, family: { a: 0.75, b: 0.25 }, difficulty: { 1: 1 } },
  ]);
});
