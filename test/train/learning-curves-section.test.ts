/**
 * The report's "Learning curves" section from a hand-built comparison: a chart per split with a line
 * and a band per strategy, a share chart per strategy, the episodes-to-target table (censored runs
 * marked) and the paired ratios; a ratio without an estimate says why.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { learningCurvesSection } from "../../src/report/html/learning-curves-section.ts";
import { compareStrategies, type StrategyRun } from "../../src/train/index.ts";

function run(strategy: string, seed: number, rates: readonly number[]): StrategyRun {
  return {
    world: "w@1",
    strategy,
    seed,
    budget: rates.length * 10,
    evalEvery: 10,
    episodes: Array.from({ length: rates.length * 10 }, (_, i) => ({
      index: i + 1,
      family: strategy === "uniform" ? ["a", "b"][i % 2] : "a",
      difficulty: 1,
    })),
    regression: rates.map((r, i) => ({
      after_episode: (i + 1) * 10,
      planned: 10,
      passed: Math.round(10 * r),
    })),
    heldout: rates.map((_, i) => ({ after_episode: (i + 1) * 10, planned: 2, passed: 0 })),
  };
}

test("the learning-curves section: banded curves per split, shares per strategy, the tables", async () => {
  const c = compareStrategies(
    [
      run("learnability", 1, [0, 0.2, 0.4]),
      run("learnability", 2, [0, 0, 0.1]),
      run("uniform", 1, [0.3, 0.9, 0.9]),
      run("uniform", 2, [0.5, 0.8, 1]),
    ],
    { defaultStrategy: "learnability", iterations: 200 },
  );
  const html = await learningCurvesSection(c, { id: "exp" });
  assert.ok(html.startsWith('<section id="learning-curves">'));
  assert.match(html, /<h2>Learning curves <small>exp<\/small><\/h2>/);
  assert.match(html, /data-world="w@1"/);
  // regression and held-out charts, then share charts per strategy (by family, by difficulty)
  assert.equal((html.match(/<svg/g) ?? []).length, 6);
  for (const title of [
    "regression split (frozen)",
    "held-out families (frozen)",
    "sampling share per family: learnability",
    "sampling share per family: uniform",
    "sampling share per difficulty: uniform",
  ])
    assert.ok(html.includes(title), title);
  // a line and a band per strategy: the legend names both
  const regression = html.slice(html.indexOf("<svg"), html.indexOf("</svg>"));
  assert.match(regression, /regression split \(frozen\)/);
  assert.match(regression, /learnability/);
  assert.match(regression, /uniform/);
  const count = (text: string, what: string) => text.split(what).length - 1;
  assert.equal(count(regression, 'aria-roledescription="area mark"'), 2, "a band per strategy");
  assert.equal(count(regression, 'aria-roledescription="line mark"'), 2, "a line per strategy");
  // the table: censored runs marked with >, the default flagged, the paired ratios
  assert.match(html, /<tr data-strategy="learnability"><td>learnability <b>\(default\)<\/b>/);
  assert.match(html, /&gt;30<\/span> <span title="seed 2">&gt;30<\/span>/);
  assert.match(html, /<tr data-versus="learnability"><td>learnability ÷ uniform<\/td>/);
  // learnability's seed 2 passed nothing at its first evaluations, but its area is > 0: a ratio
  assert.doesNotMatch(html.slice(html.indexOf('data-versus="learnability"')), /n\/a/);
});
