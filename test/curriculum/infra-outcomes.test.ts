/**
 * Infrastructure outcomes never teach the curriculum anything: an attempt that ends `infra_error`
 * (here a provider 429 with retries off, thrown as an infrastructure ProvingError by a wrapper over the
 * known-good policy) is recorded and counted apart, never fed to the sampler, the difficulty controller
 * or a split's pass rate, and retried with the same key and seed. A perfect agent climbs exactly as if
 * the infrastructure errors had not happened.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ResolvedAgent } from "../../src/agents/resolve.ts";
import type { Agent } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import {
  type CurriculumResult,
  curriculumConfig,
  evaluationPassRate,
  MemoryHistory,
  runCurriculum,
} from "../../src/curriculum/index.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { SPLIT } from "./fixtures/split.ts";

const gym = defaultGym();

/** The known-good policy, whose provider answers 429 on the starts `failing(n)` picks (n counts from 1). */
function flaky(failing: (n: number) => boolean): ResolvedAgent {
  let n = 0;
  return {
    ref: { id: "cautious", kind: "test", spec: "cautious" },
    forWorld: (w) => {
      const good = w.policies[w.knownGood];
      const agent: Agent = {
        id: "cautious",
        start: (episode) => {
          n++;
          if (failing(n))
            throw new ProvingError("provider_rate_limited", "429 Too Many Requests (retries off)");
          return good.start(episode);
        },
      };
      return agent;
    },
  };
}

const config = curriculumConfig({
  id: "infra",
  split: SPLIT,
  agent: "cautious",
  episodes: 40,
  evalEvery: 20,
  seed: 5,
});
const view = (r: Pick<CurriculumResult, "episodes">) =>
  r.episodes.map((e) => `${e.index} ${e.family}/d${e.difficulty}#${e.seed} ${e.outcome}`);

test("infra_error attempts are retried and counted apart; the curriculum climbs as if they never happened", async () => {
  const clean = await runCurriculum(config, { gym, history: new MemoryHistory(), agent: flaky(() => false) });
  assert.equal(clean.infra.length, 0);
  assert.ok(clean.episodes.every((e) => e.passed));

  // every third start fails: first attempts of episodes (the retry then passes) and evaluation tasks
  const seen: number[] = [];
  const noisy = await runCurriculum(config, {
    gym,
    history: new MemoryHistory(),
    agent: flaky((n) => n % 3 === 1),
    onInfra: (a) => seen.push(a.index),
  });
  assert.equal(noisy.interrupted, false);
  assert.ok(noisy.infra.length >= 10, `infra attempts: ${noisy.infra.length}`);
  assert.deepEqual(
    noisy.infra.map((a) => a.index),
    seen,
  );
  assert.ok(noisy.infra.every((a) => a.outcome === "infra_error" && !a.passed));
  // the same episodes (keys, seeds, outcomes) and the same difficulty and sampler state as the clean run
  assert.deepEqual(view(noisy), view(clean));
  assert.deepEqual(noisy.snapshot.difficulty, clean.snapshot.difficulty);
  assert.deepEqual(noisy.snapshot.sampler.state.book, clean.snapshot.sampler.state.book);
  assert.deepEqual(noisy.snapshot.passedUpTo, clean.snapshot.passedUpTo);
  assert.ok(
    noisy.episodes.some((e) => e.difficulty >= 3),
    "the perfect agent climbed",
  );
  // each retry replays the failed attempt's key and seed
  for (const a of noisy.infra) {
    const e = noisy.episodes[a.index - 1];
    assert.deepEqual([e.family, e.difficulty, e.seed], [a.family, a.difficulty, a.seed]);
  }
  // evaluation tasks with an infrastructure outcome are re-run; what stays infra is out of the pass rate
  const retried = [...noisy.regression, ...noisy.heldout].flatMap((r) => r.tasks.filter((x) => x.retried));
  assert.ok(retried.length > 0, "some evaluation task was re-run");
  for (const r of [...noisy.regression, ...noisy.heldout])
    assert.equal(r.passed, r.planned, "re-run to a pass");
  for (const r of [...noisy.regression, ...noisy.heldout])
    if (r.planned > (r.infra ?? 0)) assert.equal(evaluationPassRate(r), 1, `after ${r.after_episode}`);
});

test("a run stops interrupted after infraAttempts failures in a row and resumes where it was", async () => {
  const clean = await runCurriculum(config, { gym, history: new MemoryHistory(), agent: flaky(() => false) });
  const history = new MemoryHistory();
  // the provider goes down from the 12th start on
  const down = await runCurriculum(config, { gym, history, agent: flaky((n) => n >= 12), infraAttempts: 3 });
  assert.equal(down.interrupted, true);
  assert.equal(down.episodes.length, 11);
  assert.equal(down.infra.length, 3);
  assert.equal(new Set(down.infra.map((a) => `${a.index} ${a.family}/d${a.difficulty}#${a.seed}`)).size, 1);
  assert.equal((await history.getRun("infra"))?.status, "interrupted");
  const back = await runCurriculum(config, { gym, history, agent: flaky(() => false) });
  assert.equal(back.interrupted, false);
  assert.equal((await history.getRun("infra"))?.status, "completed");
  assert.deepEqual(view(back), view(clean));
  assert.equal(back.infra.length, 3);
});

test("an evaluation task that stays infra_error after its re-runs is counted apart, out of the pass rate", async () => {
  // every start fails from the 21st on: episodes 1-20 ran, the evaluation after episode 20 cannot
  const history = new MemoryHistory();
  const down = await runCurriculum(config, { gym, history, agent: flaky((n) => n > 20), infraAttempts: 3 });
  assert.equal(down.episodes.length, 20);
  const [r] = down.regression;
  assert.equal(r.after_episode, 20);
  assert.equal(r.infra, r.planned);
  assert.ok(r.tasks.every((x) => x.outcome === "infra_error" && x.retried === 3));
  assert.equal(evaluationPassRate(r), 0);
  assert.equal(evaluationPassRate({ planned: 4, passed: 3, infra: 1 }), 1);
});
