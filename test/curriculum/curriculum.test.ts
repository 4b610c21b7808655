/** The environment-layer object: generateTask, adjustDifficulty, evaluateTransition, updateDistribution, snapshot/restore. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Observation } from "../../src/core/contracts.ts";
import { type Curriculum, createCurriculum, familyOf, taskKeyId } from "../../src/curriculum/index.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { SPLIT } from "./fixtures/split.ts";

const gym = defaultGym();
const make = (strategy = "plr", seed = 3) => createCurriculum(gym, { split: SPLIT, strategy, seed });
const task: Observation = { kind: "task", instruction: "", context: {}, tools: [] };
const res = (tool: string, ok: boolean): Observation =>
  ({ kind: "tool_result", tool, callId: "c", result: { ok }, now: 0 }) as Observation;

/** Drives `n` episodes: the failing family is lost-reply, every other passes. */
function drive(c: Curriculum, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const g = c.generateTask();
    out.push(`${taskKeyId(g.key)}#${g.seed}`);
    c.evaluateTransition(task, { tool: "get_case", args: {}, callId: "c" }, 0, res("get_case", true));
    const passed = g.key.family !== "lost-reply";
    c.updateDistribution({ key: g.key, passed });
    c.adjustDifficulty({ family: familyOf(g.key), difficulty: g.key.difficulty, score: passed ? 1 : 0 });
  }
  return out;
}

test("generateTask draws a key its family has unlocked (up to one level above its current one) and the world's task for the episode's seed", () => {
  const c = make();
  const g = c.generateTask();
  assert.equal(g.index, 1);
  assert.ok(g.key.difficulty <= (c.controller?.level(familyOf(g.key)) ?? 0) + 1);
  for (let i = 0; i < 30; i++)
    assert.ok(c.generateTask().key.difficulty <= 2, "nothing passed yet: d1-2 only");
  assert.deepEqual(
    g.task,
    gym
      .world(g.key.world)
      .generateTask({ family: g.key.family, difficulty: g.key.difficulty, seed: g.seed, split: "dynamic" }),
  );
  const denied = c.generateTask(3, "denied");
  assert.equal(denied.key.family, "denied");
  assert.equal(denied.key.difficulty, 3, "an asked difficulty overrides the current level");
  assert.equal(c.generateTask(undefined, "device-support@1/needs-approval").key.family, "needs-approval");
  assert.throws(() => c.generateTask(9, "denied"), /no eligible task key/);
  assert.throws(() => c.generateTask(undefined, "unverifiable"), /no eligible task key/, "held out");
});

test("adjustDifficulty moves a family up after `window` passes and down after failures", () => {
  const c = make();
  const family = "device-support@1/denied";
  assert.equal(c.controller?.level(family), 1);
  const pass = { family, difficulty: 1, score: 1 };
  assert.deepEqual(c.adjustDifficulty([pass, pass, pass]), []);
  assert.deepEqual(c.adjustDifficulty(pass), [{ family, from: 1, to: 2, passRate: 1 }]);
  const fail = { family, difficulty: 2, score: 0 };
  assert.deepEqual(c.adjustDifficulty([fail, fail, fail, fail]), [{ family, from: 2, to: 1, passRate: 0 }]);
  assert.deepEqual(createCurriculum(gym, { split: SPLIT, difficulty: false }).adjustDifficulty(pass), []);
});

test("evaluateTransition counts into the episode; updateDistribution feeds the sampler and sums per key", () => {
  const c = make("uniform");
  const key = c.sampler.keys[0];
  const s1 = c.evaluateTransition(
    task,
    { tool: "create_x", args: {}, callId: "c" },
    0,
    res("create_x", false),
  );
  assert.equal(s1.toolError, true);
  assert.equal(s1.writeWithoutRead, true);
  c.evaluateTransition(task, { tool: "create_x", args: {}, callId: "c" }, 0, res("create_x", true));
  c.updateDistribution({ key, passed: false });
  const p = c.processByKey()[taskKeyId(key)];
  assert.equal(p.steps, 2);
  assert.equal(p.toolErrors, 1);
  assert.equal(p.repeated, 1);
  assert.equal(p.writesWithoutRead, 2);
  // the next episode starts with a fresh tracker; a given summary is added to the key's sum
  c.updateDistribution({ key, passed: true, process: { ...p } });
  assert.equal(c.processByKey()[taskKeyId(key)].steps, 4);
  // the penalty reaches the sampler: PLR scores a wasteful failure above a clean one
  const clean = make("plr");
  const wasteful = make("plr");
  const k = clean.sampler.keys[0];
  clean.updateDistribution({ key: k, passed: false, process: 0 });
  wasteful.updateDistribution({ key: k, passed: false, process: 1 });
  assert.ok(wasteful.sampler.probabilities()[0] >= clean.sampler.probabilities()[0]);
  assert.notDeepEqual(wasteful.sampler.snapshot(), clean.sampler.snapshot());
});

test("the same seed and calls give the same tasks; snapshot/restore mid-run gives the same continuation", () => {
  assert.deepEqual(drive(make(), 60), drive(make(), 60));
  assert.notDeepEqual(drive(make("plr", 3), 60), drive(make("plr", 4), 60));
  for (const strategy of ["plr", "learnability", "learning-progress", "target-band", "uniform"]) {
    const a = make(strategy);
    drive(a, 40);
    const snap = JSON.parse(JSON.stringify(a.snapshot()));
    const rest = drive(a, 40);
    const b = make(strategy);
    b.restore(snap);
    assert.equal(b.episode, 40);
    assert.deepEqual(drive(b, 40), rest, strategy);
    assert.deepEqual(b.snapshot(), a.snapshot(), strategy);
  }
  assert.throws(() => make("uniform").restore(make("plr").snapshot()), /does not fit/);
});

test("nextKey with a filter none of whose keys is at its family's level draws among the filter's keys", () => {
  const c = make();
  const key = c.nextKey((k) => k.difficulty === 3);
  assert.equal(key.difficulty, 3, "every family is at level 1; the filter keeps level 3 only");
  assert.equal(c.episode, 1);
  assert.throws(() => c.nextKey(() => false), /no eligible task key/);
});
