/**
 * Where the default strategy puts the budget, against agents with a planted skill profile
 * (fixtures/skill-agents.ts): one weak on a family only at higher difficulties (learnable at d3), one
 * that also never passes the conversation families. In a 200-episode run, >= 60% of episodes 101–200
 * go to the learnable weak keys and <= 10% to keys never passed in >= 10 tries (measured: 91–97% and
 * 0% over seeds 1–3, so the margin is wide). Also the learnability top-k bug: with one key per family
 * eligible, learnability was exactly uniform.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SplitFile } from "../../src/curriculum/index.ts";
import {
  curriculumConfig,
  DEFAULT_STRATEGY,
  LearnabilitySampler,
  MemoryHistory,
  runCurriculum,
  type TaskKey,
} from "../../src/curriculum/index.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import {
  budgetShares,
  neverOnConversations,
  type Profile,
  profiledAgent,
  SPLIT_V1,
  SPLIT_V2,
  WEAK_FAMILY,
  watchedGym,
  weakAtDifficulty,
} from "./fixtures/skill-agents.ts";

async function run(split: SplitFile, profile: Profile, strategy: string, seed: number) {
  const { gym, taskOf } = watchedGym(defaultGym());
  const agent = profiledAgent("profiled", profile, taskOf);
  const config = curriculumConfig({
    id: `skill-${strategy}-${seed}`,
    split,
    agent: "profiled",
    episodes: 200,
    evalEvery: 100,
    strategy,
    seed,
  });
  return runCurriculum(config, { gym, history: new MemoryHistory(), agent });
}

for (const [name, split, profile] of [
  ["weak at d3 (device-support@1)", SPLIT_V1, weakAtDifficulty],
  ["weak at d3, never on conversations (device-support@2)", SPLIT_V2, neverOnConversations],
] as const) {
  test(`default strategy, ${name}: >= 60% of episodes 101-200 on learnable weak keys, <= 10% on never-passed keys`, async (t) => {
    const r = await run(split, profile, DEFAULT_STRATEGY, 1);
    const shares = budgetShares(r.episodes);
    t.diagnostic(`learnable ${shares.learnable}, never passed ${shares.neverPassed}`);
    assert.ok(shares.learnable >= 0.6, `learnable weak keys: ${shares.learnable}`);
    assert.ok(shares.neverPassed <= 0.1, `never-passed keys: ${shares.neverPassed}`);
    // the profile is what the run saw
    const weak3 = r.episodes.filter((e) => e.family === WEAK_FAMILY && e.difficulty === 3);
    assert.ok(weak3.some((e) => e.passed) && weak3.some((e) => !e.passed));
  });
}

test("learnability differs from uniform when pass rates differ, and favours p ~ 0.5 keys", async () => {
  const learn = await run(SPLIT_V1, weakAtDifficulty, "learnability", 4);
  const uniform = await run(SPLIT_V1, weakAtDifficulty, "uniform", 4);
  const seq = (r: typeof learn) => r.episodes.map((e) => `${e.family}/d${e.difficulty}`);
  assert.notDeepEqual(seq(learn), seq(uniform));
  const onHalf = (r: typeof learn) =>
    r.episodes.filter((e) => e.family === WEAK_FAMILY && e.difficulty === 3).length;
  assert.ok(
    onHalf(learn) >= 2 * onHalf(uniform) + 20,
    `learnability ${onHalf(learn)}, uniform ${onHalf(uniform)}`,
  );
});

test("learnability with fewer eligible keys than its top-k is not uniform (the top-k bug)", () => {
  const keys: TaskKey[] = ["a", "b", "c", "d", "e", "f"].map((family) => ({
    world: "w@1",
    family,
    difficulty: 1,
  }));
  const s = new LearnabilitySampler({ keys, seed: 1 });
  for (let i = 0; i < 10; i++)
    s.update(keys.map((key, k) => ({ key, passed: k === 0 ? i % 2 === 0 : k !== 5 })));
  const p = s.probabilities();
  assert.ok(p[0] > 0.8, `p ~ 0.5 key: ${p[0]}`);
  for (let k = 1; k < 6; k++) assert.ok(p[k] < 0.05, `key ${k} (always or never passed): ${p[k]}`);
});
