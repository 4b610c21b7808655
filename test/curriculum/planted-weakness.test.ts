/**
 * The curriculum follows the agent's weakness: a test agent that fails one family (lost-reply) and
 * passes the others, 200 episodes. PLR (1 − p̂) puts at least 60% of episodes 101–200 on the weak
 * family — which this agent can never pass; the default (learnability) gives it at most 10%
 * (default-strategy.test.ts has the learnable case); the regression split's tasks and manifest hash are
 * identical at every evaluation; the held-out family is never sampled for training.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  curriculumConfig,
  DEFAULT_STRATEGY,
  MemoryHistory,
  regressionManifest,
  runCurriculum,
} from "../../src/curriculum/index.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { SPLIT } from "./fixtures/split.ts";
import { WEAK_FAMILY, weakResolved } from "./fixtures/weak-agent.ts";

test("plr gives the never-passed weak family >= 60% of episodes 101-200, the default <= 10%; the regression split never changes", async (t) => {
  const gym = defaultGym();
  const config = curriculumConfig({
    id: "planted",
    split: SPLIT,
    agent: weakResolved.ref.spec,
    episodes: 200,
    evalEvery: 50,
    seed: 7,
    strategy: "plr",
  });
  const byDefault = await runCurriculum(
    { ...config, strategy: DEFAULT_STRATEGY },
    { gym, history: new MemoryHistory(), agent: weakResolved },
  );
  const lateDefault = byDefault.episodes.filter((e) => e.index > 100);
  const weakByDefault = lateDefault.filter((e) => e.family === WEAK_FAMILY).length / lateDefault.length;
  t.diagnostic(`default (${DEFAULT_STRATEGY}): weak family share in episodes 101-200: ${weakByDefault}`);
  // nothing is learnable for this agent (every key always or never passed): learnability rehearses the
  // keys it can pass, the never-passed family gets only its part of the uniform share
  assert.ok(weakByDefault <= 0.1, `default strategy on a never-passed family: ${weakByDefault}`);
  const result = await runCurriculum(config, { gym, history: new MemoryHistory(), agent: weakResolved });

  assert.equal(result.episodes.length, 200);
  const late = result.episodes.filter((e) => e.index > 100);
  const weak = late.filter((e) => e.family === WEAK_FAMILY).length / late.length;
  const shares: string[] = [];
  for (let from = 1; from <= 200; from += 50) {
    const w = result.episodes.filter((e) => e.index >= from && e.index < from + 50);
    const by: Record<string, number> = {};
    for (const e of w) by[e.family] = (by[e.family] ?? 0) + 1;
    shares.push(
      `${from}-${from + 49}: ${Object.entries(by)
        .sort((a, b) => b[1] - a[1])
        .map(([f, n]) => `${f} ${Math.round((100 * n) / w.length)}%`)
        .join(", ")}`,
    );
  }
  t.diagnostic(`share per family over time: ${shares.join(" | ")}`);
  t.diagnostic(`weak family share in episodes 101-200: ${weak}`);
  assert.ok(weak >= 0.6, `weak family share ${weak}`);
  // the agent really is weak there and strong elsewhere
  assert.ok(result.episodes.filter((e) => e.family === WEAK_FAMILY).every((e) => !e.passed));
  assert.ok(result.episodes.filter((e) => e.family !== WEAK_FAMILY).every((e) => e.passed));
  // held out: never sampled for training, evaluated apart
  assert.ok(result.episodes.every((e) => e.family !== "unverifiable"));
  assert.equal(result.heldout.length, 4);

  const expected = regressionManifest(SPLIT, gym);
  assert.deepEqual(
    result.regression.map((r) => r.after_episode),
    [50, 100, 150, 200],
  );
  const taskLists = result.regression.map((r) => r.tasks.map((x) => `${x.key}#${x.seed}`));
  for (const r of result.regression) {
    assert.equal(r.manifest_hash, expected.hash);
    assert.equal(r.planned, 4);
  }
  for (const list of taskLists) assert.deepEqual(list, taskLists[0]);
  assert.deepEqual(
    taskLists[0],
    expected.tasks.map((x) => `device-support@1/${x.key.family}/d${x.key.difficulty}#${x.seed}`),
  );
  // no training episode replays a frozen task
  const frozen = new Set(taskLists[0]);
  assert.ok(result.episodes.every((e) => !frozen.has(`${e.world}/${e.family}/d${e.difficulty}#${e.seed}`)));
  // each episode carries its generation record
  const g = result.episodes[0].generation;
  assert.ok(g.template && g.contentHash && g.acceptance.verifier && g.acceptance.checks.length > 0);
});
