/**
 * The Q-learner learns device-support@1: seeded (learner seed 3, task-sampling seed 3), 2,000
 * training episodes drawn uniformly over families and difficulties, then its frozen pass rate on a
 * fixed evaluation set (every family at difficulties 1–3, task seeds 9001 and 9002: 48 tasks) must
 * be at least the random-admissible agent's pass rate on the same set + 0.3. Deterministic: the same
 * seeds give the same result every run; not a timed test. Every episode is a planned trial through
 * the runner's pipeline (budgets, clean-start and after-end checks, the verdict, the end hook).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "../../src/core/rng.ts";
import { Learner, randomAdmissibleAgent } from "../../src/learners/index.ts";
import { evaluationSet, passRate, trainLearner } from "../../src/train/index.ts";
import { deviceSupport } from "../../src/worlds/device-support/index.ts";

const SEED = 3;
const parts = { registry: { world: () => deviceSupport } };
const EPISODES = 2000;
const MARGIN = 0.3;

describe("learner.q@1 on device-support@1", () => {
  it(`its frozen pass rate after ${EPISODES} episodes beats the random agent's by ${MARGIN}`, async () => {
    const evalSet = evaluationSet(deviceSupport, [1, 2, 3], [9001, 9002]);
    assert.equal(evalSet.length, 48);
    const random = await passRate(
      parts,
      deviceSupport,
      randomAdmissibleAgent(Rng.seeded(SEED, "random")),
      evalSet,
    );
    const learner = Learner.q({ rng: Rng.seeded(SEED, "learner") });
    const before = await passRate(parts, deviceSupport, learner, evalSet);
    await trainLearner(parts, deviceSupport, learner, EPISODES, Rng.seeded(SEED, "tasks"));
    const after = await passRate(parts, deviceSupport, learner, evalSet);
    assert.ok(
      after >= random + MARGIN,
      `frozen pass rate ${after.toFixed(3)} after ${EPISODES} episodes; random ${random.toFixed(3)}, untrained ${before.toFixed(3)}`,
    );
    const history = learner.trainingHistory();
    assert.equal(history.updates, EPISODES);
    assert.equal(history.passesPerBlock.length, EPISODES / history.block);

    // the policy is plain JSON, content-hashed; restored, it plays the same
    const policy = JSON.parse(JSON.stringify(learner.policy()));
    const restored = Learner.restore(policy, { frozen: true });
    assert.equal(restored.policy().hash, policy.hash);
    assert.equal(await passRate(parts, deviceSupport, restored, evalSet), after);
  });
});
