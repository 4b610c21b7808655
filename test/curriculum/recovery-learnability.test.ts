/**
 * learnability-recovery against agents of our own, sampler only (no trials; fast): a learner-like agent
 * whose pass rate on a family rises only after it has played that family, and a fixed agent that can
 * never pass some families. Plain learnability scores a key failed every time 0 and starves the
 * learner's late families; learnability-recovery keeps sampling them (its recovery rate is fed by the
 * learner getting unstuck) and leaves a fixed agent's unpassable family alone.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Rng } from "../../src/core/rng.ts";
import {
  createSampler,
  RecoveryLearnabilitySampler,
  type Sampler,
  type TaskKey,
} from "../../src/curriculum/index.ts";

const keys: TaskKey[] = ["easy", "late-a", "late-b", "late-c", "late-d", "late-e", "late-f", "late-g"].map(
  (family) => ({
    world: "w@1",
    family,
    difficulty: 1,
  }),
);

/** Plays `episodes` draws of `sampler`; `passRate(family index, plays of it so far)`. */
function play(
  sampler: Sampler,
  episodes: number,
  passRate: (f: number, plays: number) => number,
  seed: number,
) {
  const rng = Rng.seeded(seed, "recovery-test.agent");
  const plays = new Array(keys.length).fill(0);
  const late = new Array(keys.length).fill(0);
  for (let t = 1; t <= episodes; t++) {
    const [key] = sampler.sample(1);
    const f = keys.findIndex((k) => k.family === key.family);
    const passed = rng.next() < passRate(f, plays[f]);
    plays[f]++;
    if (t > episodes - 200) late[f]++;
    sampler.update([{ key, passed }]);
  }
  return { plays, late };
}

/** The learner: the easy family passed half the time from the start; a late family at n/60 on its
 * n-th play (rarely passed in its first 10 plays), up to 0.9: it learns a family only by playing it. */
const learner = (f: number, n: number) => (f === 0 ? 0.5 : Math.min(0.9, n / 60));

test("learnability-recovery keeps sampling families a learner has not passed yet; learnability starves them", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const rec = play(createSampler("learnability-recovery", { keys, seed }), 1000, learner, seed);
    const plain = play(createSampler("learnability", { keys, seed }), 1000, learner, seed);
    const least = (plays: number[]) => Math.min(...plays.slice(1));
    // every late family kept being played under recovery, until it passed a third of the time
    // (measured: the least-played late family had 21–78 plays over seeds 1–5)
    assert.ok(least(rec.plays) >= 20, `seed ${seed}: recovery plays ${rec.plays.join(",")}`);
    // plain learnability starved one at least: stuck at p = 0, it had the uniform share (measured: 10–13 plays)
    assert.ok(least(plain.plays) < 15, `seed ${seed}: learnability plays ${plain.plays.join(",")}`);
  }
});

test("learnability-recovery leaves a fixed agent's never-passed family alone: its recovery rate falls", () => {
  // easy passed half the time, late-a to late-e always, late-f and late-g never
  const fixed = (f: number) => (f === 0 ? 0.5 : f < 6 ? 1 : 0);
  for (const seed of [1, 2, 3]) {
    const s = new RecoveryLearnabilitySampler({ keys, seed });
    const { late } = play(s, 400, fixed, seed);
    assert.equal(s.recoveries, 0);
    assert.ok(s.recoveryRate() < 0.01, `recovery rate ${s.recoveryRate()}`);
    const never = late[6] + late[7];
    // uniform would give them 25%; learnability 2–5%, recovery 3–8% (measured, seeds 1–3)
    assert.ok(never / 200 <= 0.1, `seed ${seed}: never-passed families ${never} of the last 200`);
    assert.ok(late[0] / 200 >= 0.6, `seed ${seed}: the p = 0.5 family ${late[0]} of the last 200`);
  }
});

test("learnability-recovery snapshots restore exactly; a snapshot without its counts is refused", () => {
  const a = new RecoveryLearnabilitySampler({ keys, seed: 5 });
  play(a, 300, learner, 5);
  const snap = JSON.parse(JSON.stringify(a.snapshot()));
  const b = new RecoveryLearnabilitySampler({ keys, seed: 99 });
  b.restore(snap);
  assert.equal(b.stuckTries, a.stuckTries);
  assert.equal(b.recoveries, a.recoveries);
  assert.deepEqual(b.sample(20), a.sample(20));
  const broken = { ...snap, state: { ...snap.state, extra: null } };
  assert.throws(
    () => new RecoveryLearnabilitySampler({ keys, seed: 5 }).restore(broken),
    (e: Error & { code?: string }) => e.code === "bad_sampler_snapshot",
  );
  // a plain learnability snapshot is not this strategy's
  const plain = createSampler("learnability", { keys, seed: 5 });
  assert.throws(
    () => b.restore(plain.snapshot()),
    (e: Error & { code?: string }) => e.code === "bad_sampler_snapshot",
  );
});
