/**
 * Each sampler's formula against hand-computed values, its determinism given (seed, history), and a
 * snapshot taken mid-run (through JSON) continuing exactly as the original sampler does.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  createSampler,
  LearnabilitySampler,
  LearningProgressSampler,
  PlrSampler,
  type Sampler,
  STRATEGIES,
  TargetBandSampler,
  type TaskKey,
  taskKeyId,
  UniformSampler,
} from "../../src/curriculum/index.ts";

const key = (family: string, difficulty = 1): TaskKey => ({ world: "w@1", family, difficulty });
const [A, B, C, D, E] = ["a", "b", "c", "d", "e"].map((f) => key(f));
const feed = (s: Sampler, k: TaskKey, scores: number[]) =>
  s.update(scores.map((x) => ({ key: k, passed: x === 1, score: x })));
const close = (actual: ArrayLike<number>, expected: number[]) => {
  assert.equal(actual.length, expected.length);
  for (const [i, e] of expected.entries()) {
    assert.ok(Math.abs(actual[i] - e) < 1e-12, `p[${i}] = ${actual[i]}, want ${e}`);
  }
};

describe("uniform", () => {
  test("P(i) = 1/n over the eligible keys", () => {
    const s = new UniformSampler({ keys: [A, B, C, D], seed: 1 });
    close(s.probabilities(), [0.25, 0.25, 0.25, 0.25]);
    close(s.probabilities({ eligible: (k) => k.family !== "a" && k.family !== "c" }), [0, 0.5, 0, 0.5]);
    for (const k of s.sample(50, { eligible: (k) => k.family === "b" })) assert.equal(k.family, "b");
  });
});

describe("target band", () => {
  test("weight 1 inside the band, exp(−d/τ) outside, on the Beta(1,1) posterior mean", () => {
    const s = new TargetBandSampler({ keys: [A, B, C, D], seed: 1 });
    feed(s, A, [1, 1, 1]); // (3+1)/(3+2) = 0.8 → d = 0.2 → e^-2
    feed(s, B, [0]); // (0+1)/(1+2) = 1/3 → d = 0.4 − 1/3 → e^-(2/3)
    feed(s, D, [1, 0]); // 2/4 = 0.5 → in band; C unseen: 0.5 → in band
    const w = [Math.exp(-2), Math.exp(-(0.4 - 1 / 3) / 0.1), 1, 1];
    const total = w.reduce((x, y) => x + y);
    close(
      s.probabilities(),
      w.map((x) => x / total),
    );
    assert.ok(Math.abs(s.bandWeight(0.8) - 0.1353352832366127) < 1e-12);
    assert.deepEqual(s.band, [0.4, 0.6]);
  });
});

describe("learnability", () => {
  test("p(1−p) with a prior for unseen keys; (1−ε)/k on the top k plus ε/n", () => {
    const s = new LearnabilitySampler({ keys: [A, B, C, D, E], seed: 1, topK: 2, uniformMix: 0.2 });
    feed(s, A, [1, 1]); // L = 0
    feed(s, B, [1, 0]); // L = 0.25
    feed(s, C, [1, 1, 0]); // L = 2/9
    feed(s, E, [0]); // L = 0; D unseen: prior 0.5 → L = 0.25
    assert.ok(Math.abs(s.learnability(2) - 2 / 9) < 1e-12);
    assert.equal(s.learnability(3), 0.25);
    // top-2: B and D (tie at 0.25, key order); C's 2/9 is third
    close(s.probabilities(), [0.04, 0.44, 0.04, 0.44, 0.04]);
  });
});

describe("prioritized level replay", () => {
  test("rank transform with temperature, staleness mix (hand-computed)", () => {
    const s = new PlrSampler({ keys: [A, B, C], seed: 1, temperature: 1, staleness: 0.5, processWeight: 0 });
    // draw A at clock 1 and B at clock 2 (forced by eligibility): C never drawn
    s.sample(1, { eligible: (k) => k.family === "a" });
    s.sample(1, { eligible: (k) => k.family === "b" });
    feed(s, A, [1]); // p̂ = 2/3, S = 1/3 (rank 3)
    feed(s, B, [0]); // p̂ = 1/3, S = 2/3 (rank 1); C unseen: S = 1/2 (rank 2)
    // P_S = (2/11, 6/11, 3/11); c = 2, c − C_i = (1, 0, 2) → P_C = (1/3, 0, 2/3)
    close(s.probabilities(), [17 / 66, 18 / 66, 31 / 66]);
  });

  test("defaults β = 0.1, ρ = 0.1: (1/rank)^10, and the process penalty raises the score", () => {
    const s = new PlrSampler({ keys: [A, B, C], seed: 1 });
    feed(s, A, [1]);
    feed(s, B, [0]);
    const h = [3 ** -10, 1, 2 ** -10];
    const total = h.reduce((x, y) => x + y);
    // no draw yet: staleness is uniform
    close(
      s.probabilities(),
      h.map((x) => 0.9 * (x / total) + 0.1 / 3),
    );
    s.update([{ key: A, passed: true, process: 1 }]); // A: p̂ = 3/4, q = 1 → S = 1/4 + 0.2
    assert.ok(Math.abs(s.score(0) - (0.25 + 0.2)) < 1e-12);
  });
});

test("plr keeps its ranking between draws: every draw's probabilities are the formula's, recomputed from scratch", () => {
  // 60 keys, many tied scores, eligibility changing by draw: the ranking the sampler updates one key
  // at a time must give what ranking every key afresh gives (a reference of the documented formula)
  const keys = Array.from({ length: 60 }, (_, i) => key(`f${i % 12}`, 1 + Math.floor(i / 12)));
  const s = new PlrSampler({ keys, seed: 3, temperature: 0.5, staleness: 0.2 });
  const reference = (mask: boolean[]): number[] => {
    const snap = s.snapshot().state.book as {
      clock: number;
      recent: number[][];
      lastSampled: number[];
      process: (number | null)[];
    };
    const score = (i: number) =>
      1 -
      (snap.recent[i].reduce((x, y) => x + y, 0) + 1) / (snap.recent[i].length + 2) +
      0.2 * (snap.process[i] ?? 0);
    const eligible = keys.map((_, i) => i).filter((i) => mask[i]);
    const order = eligible.slice().sort((x, y) => score(y) - score(x) || x - y);
    const h = new Map(order.map((i, r) => [i, (1 / (r + 1)) ** 2]));
    const hTotal = [...h.values()].reduce((x, y) => x + y, 0);
    const stale = eligible.map((i) => snap.clock - snap.lastSampled[i]);
    const staleTotal = stale.reduce((x, y) => x + y, 0);
    const w = keys.map((_, i) =>
      mask[i]
        ? 0.8 * ((h.get(i) as number) / hTotal) +
          0.2 * (staleTotal > 0 ? (snap.clock - snap.lastSampled[i]) / staleTotal : 1 / eligible.length)
        : 0,
    );
    const total = w.reduce((x, y) => x + y, 0);
    return w.map((x) => x / total);
  };
  let checked = 0;
  for (let step = 0; step < 150; step++) {
    const level = 1 + (Math.floor(step / 20) % 5);
    const eligible = (k: TaskKey) => step % 7 === 0 || k.difficulty === level;
    close(s.probabilities({ eligible }), reference(keys.map((k) => eligible(k))));
    checked++;
    const [k] = s.sample(1, { eligible });
    const passed = (step * 7 + k.family.length) % 3 !== 0;
    s.update([{ key: k, passed, ...(step % 5 === 0 ? { process: (step % 4) / 4 } : {}) }]);
    if (step === 75) {
      // a restored copy (ranking rebuilt from the snapshot) continues with the same draws
      const copy = new PlrSampler({ keys, seed: 99, temperature: 0.5, staleness: 0.2 });
      copy.restore(JSON.parse(JSON.stringify(s.snapshot())));
      const next = (x: PlrSampler) => x.sample(5, { eligible }).map(taskKeyId);
      const before = s.snapshot();
      assert.deepEqual(next(copy), next(s));
      s.restore(before);
    }
  }
  assert.equal(checked, 150);
});

describe("learning progress", () => {
  test("|r(fast) − r(slow)| with reweighting, mixed with uniform", () => {
    const s = new LearningProgressSampler({
      keys: [A, B, C],
      seed: 1,
      fast: 0.5,
      slow: 0.25,
      uniformMix: 0.2,
    });
    feed(s, A, [0, 1]); // f = 0.5, s = 0.25; r(0.5) = 0.9, r(0.25) = 0.225/0.3 = 0.75 → LP = 0.15
    feed(s, B, [1]); // f = s = 1 → LP 0
    assert.ok(Math.abs(s.progress(0) - 0.15) < 1e-12);
    assert.equal(s.reweighted(0.1), 0.5);
    close(s.probabilities(), [0.8 + 0.2 / 3, 0.2 / 3, 0.2 / 3]);
  });
});

/** A deterministic fake agent: passes a key when (family, draw index) says so; "b" always fails. */
function drive(s: Sampler, episodes: number, from = 0): string[] {
  const drawn: string[] = [];
  for (let i = from; i < from + episodes; i++) {
    const [k] = s.sample(1);
    drawn.push(taskKeyId(k));
    const passed = k.family !== "b" && (i * 7 + k.family.charCodeAt(0)) % 3 !== 0;
    s.update([{ key: k, passed, process: passed ? 0 : 0.5 }]);
  }
  return drawn;
}

const space = ["a", "b", "c", "d", "e", "f"].flatMap((f) => [1, 2, 3].map((d) => key(f, d)));

for (const strategy of STRATEGIES) {
  describe(`${strategy}: determinism and snapshot/restore`, () => {
    test("the same seed and history give the same draws; another seed does not", () => {
      const one = drive(createSampler(strategy, { keys: space, seed: 11 }), 60);
      const two = drive(createSampler(strategy, { keys: space, seed: 11 }), 60);
      const other = drive(createSampler(strategy, { keys: space, seed: 12 }), 60);
      assert.deepEqual(one, two);
      assert.notDeepEqual(one, other);
    });

    test("a snapshot taken mid-run continues exactly as the original", () => {
      const original = createSampler(strategy, { keys: space, seed: 5 });
      drive(original, 25);
      const snapshot = JSON.parse(JSON.stringify(original.snapshot()));
      const rest = drive(original, 40, 25);
      const restored = createSampler(strategy, { keys: space, seed: 999 });
      restored.restore(snapshot);
      assert.deepEqual(drive(restored, 40, 25), rest);
    });

    test("a snapshot of another strategy or key space is refused", () => {
      const s = createSampler(strategy, { keys: space, seed: 1 });
      const other = createSampler(strategy === "uniform" ? "plr" : "uniform", { keys: space, seed: 1 });
      assert.throws(() => s.restore(other.snapshot()), { code: "bad_sampler_snapshot" });
      const smaller = createSampler(strategy, { keys: space.slice(1), seed: 1 });
      assert.throws(() => s.restore(smaller.snapshot()), { code: "bad_sampler_snapshot" });
    });
  });
}

test("results for a key outside the space and unknown strategies are config errors", () => {
  const s = createSampler("plr", { keys: [A], seed: 1 });
  assert.throws(() => s.update([{ key: B, passed: true }]), { code: "unknown_task_key" });
  assert.throws(() => createSampler("greedy", { keys: [A], seed: 1 }), { code: "unknown_strategy" });
  assert.throws(() => createSampler("plr", { keys: [A, A], seed: 1 }), { code: "duplicate_task_key" });
});
