/**
 * Rigging the learner (issue 25, experiment 3), small and seeded: at each checkpoint the rigger
 * diagnoses the FROZEN learner from its own baseline trials (which it plays without learning), and
 * the summary counts the seeds whose top diagnosis changed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { acceptedVariants, rigFinding, rigLearner } from "../../src/cli/commands/train-rigger.ts";
import { defaultGym } from "../../src/gym/index.ts";
import type { RigResult } from "../../src/rigger/rig.ts";
import { runRigCheckpoints, topChange, trainSplit } from "../../src/train/index.ts";

const gym = defaultGym();
const world = gym.world("device-support@1");

test("train rig: each checkpoint's diagnoses come from the frozen learner's own rollouts", async () => {
  const rigs: RigResult[] = [];
  const hashes: [string, string][] = [];
  const run = () =>
    runRigCheckpoints(
      {
        id: "tr",
        world,
        learner: "q",
        checkpoints: [0, 40],
        seeds: [3],
        split: trainSplit(world, { heldout: [], difficulties: [1], seeds: [9001] }),
      },
      {
        parts: { registry: gym.registry, environment: gym.harness.environment },
        rig: async (frozen, policy, rigId) => {
          assert.equal(frozen.frozen, true);
          const r = await rigLearner(
            { gym, world: world.id, budgetPerWeakness: 8, baselineTrials: 1 },
            frozen,
            rigId,
          );
          // the frozen learner played the rig's rollouts and learned nothing from them
          hashes.push([policy.hash, frozen.policy().hash]);
          rigs.push(r);
          return rigFinding(r);
        },
      },
    );
  const result = await run();
  for (const [before, after] of hashes) assert.equal(after, before);
  assert.equal(result.kind, "train.rig");
  assert.deepEqual(
    result.perSeed[0].checkpoints.map((c) => c.checkpoint),
    [0, 40],
  );
  for (const [i, c] of result.perSeed[0].checkpoints.entries()) {
    const r = rigs[i];
    assert.equal(r.id, `tr-s3-c${c.checkpoint}`);
    assert.equal(c.finding.baseline.trials, world.families.length * 3);
    // an untrained greedy learner fails everything: the rigger names a weakness from those trials
    if (c.checkpoint === 0) assert.ok(c.finding.diagnoses.length > 0);
    assert.equal(
      c.top,
      c.finding.diagnoses[0]
        ? `${c.finding.diagnoses[0].pattern}${c.finding.diagnoses[0].tool ? `:${c.finding.diagnoses[0].tool}` : ""}`
        : null,
    );
    for (const d of r.diagnoses) for (const e of d.evidence) assert.ok(e.trialId.startsWith("t-"));
    assert.equal(acceptedVariants(r).length, c.finding.accepted);
  }
  assert.equal(result.overall.seeds, 1);
  assert.match(result.answer, /top weakness changed for [01] of 1 seeds/);
  // deterministic: the rigger's rollouts of a frozen learner play in manifest order
  assert.deepEqual(await run(), result);
});

test("topChange: the share of seeds whose top diagnosis differs between two checkpoints", () => {
  const seeds = [
    ["a", "b"],
    ["a", "a"],
    [null, "a"],
    ["c", null],
  ].map((tops) => ({ checkpoints: tops.map((top, i) => ({ checkpoint: i * 100, top })) }));
  assert.deepEqual(topChange(seeds, 0, 1), {
    from: 0,
    to: 100,
    seeds: 4,
    changed: 3,
    share: 0.75,
    named: 2,
    changedNamed: 1,
  });
  assert.deepEqual(topChange(seeds, 0, 0), {
    from: 0,
    to: 0,
    seeds: 4,
    changed: 0,
    share: 0,
    named: 3,
    changedNamed: 0,
  });
});
