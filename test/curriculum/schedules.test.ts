/** Difficulty adjustment with hysteresis, the interaction-horizon schedule, DAPO's dynamic-sampling filter. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  DifficultyController,
  dynamicSample,
  horizonSchedule,
  informative,
  parseHorizon,
} from "../../src/curriculum/index.ts";

describe("difficulty controller", () => {
  const families = { a: [1, 2, 3], b: [1, 2, 3, 4, 5] };

  test("moves up after a window of passes, down after failures, bounded, with a fresh window after a move", () => {
    const c = new DifficultyController({ families, window: 3 });
    assert.equal(c.level("a"), 1);
    assert.equal(c.record("a", 1, 1), undefined);
    assert.equal(c.record("a", 1, 1), undefined);
    assert.deepEqual(c.record("a", 1, 1), { family: "a", from: 1, to: 2, passRate: 1 });
    // a result at another level says nothing about the current one
    assert.equal(c.record("a", 1, 0), undefined);
    // two failures are not a window yet: no move back (hysteresis)
    c.record("a", 2, 0);
    assert.equal(c.record("a", 2, 0), undefined);
    assert.equal(c.level("a"), 2);
    assert.equal(c.record("a", 2, 0)?.to, 1);
    // at the bottom it stays
    for (let i = 0; i < 6; i++) c.record("a", 1, 0);
    assert.equal(c.level("a"), 1);
  });

  test("a pass rate between the thresholds holds the level", () => {
    const c = new DifficultyController({ families, window: 4, start: 3 });
    assert.equal(c.level("b"), 3);
    for (const x of [1, 0, 1, 0, 1, 0, 1, 0]) assert.equal(c.record("b", 3, x), undefined);
    assert.equal(c.level("b"), 3);
  });

  test("snapshot and restore continue alike", () => {
    const c = new DifficultyController({ families, window: 2, max: 2 });
    c.record("b", 1, 1);
    const copy = new DifficultyController({ families, window: 2, max: 2 });
    copy.restore(JSON.parse(JSON.stringify(c.snapshot())));
    assert.deepEqual(copy.record("b", 1, 1), c.record("b", 1, 1));
    c.record("b", 2, 1);
    assert.equal(c.record("b", 2, 1), undefined, "bounded by max 2");
    assert.throws(() => copy.restore({ level: { a: 9, b: 1 }, recent: { a: [], b: [] } }), {
      code: "bad_sampler_snapshot",
    });
  });
});

describe("interaction horizon", () => {
  test("the turn cap grows by stage", () => {
    const at = horizonSchedule(parseHorizon("0:10, 50:20,100:40"));
    assert.deepEqual([0, 49, 50, 99, 100, 1000].map(at), [10, 10, 20, 20, 40, 40]);
    assert.throws(() => horizonSchedule([{ from: 5, maxSteps: 10 }]), { code: "bad_sampler_option" });
    assert.throws(() => horizonSchedule(parseHorizon("0:20,10:10")), { code: "bad_sampler_option" });
  });
});

describe("dynamic sampling", () => {
  test("drops all-pass and all-fail groups, refills, and stops at the cap", async () => {
    assert.equal(informative({ task: 1, passed: [true, false] }), true);
    assert.equal(informative({ task: 1, passed: [true, true] }), false);
    assert.equal(informative({ task: 1, passed: [false, false] }), false);
    const groups = [
      [true, true],
      [false, true],
      [false, false],
      [true, false],
      [true, true],
    ];
    let i = 0;
    const draw = async () => ({ task: i, passed: groups[i++ % groups.length] });
    const full = await dynamicSample(draw, 2);
    assert.deepEqual(
      full.kept.map((g) => g.task),
      [1, 3],
    );
    assert.equal(full.drawn, 4);
    assert.equal(full.short, false);
    i = 0;
    const capped = await dynamicSample(async () => ({ task: i++, passed: [true, true] }), 2, 5);
    assert.equal(capped.kept.length, 0);
    assert.equal(capped.drawn, 5);
    assert.equal(capped.short, true);
  });
});
