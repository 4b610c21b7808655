/** The reference learners: seeded and deterministic, plain-JSON policies with their hash, frozen mode. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AdmissibleAction, Observation } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import { Rng } from "../../src/core/rng.ts";
import { Learner } from "../../src/learners/index.ts";
import { playEpisodes, trainLearner } from "../../src/train/index.ts";
import { deviceSupport } from "../../src/worlds/device-support/index.ts";
import { orderOps } from "../../src/worlds/order-ops/index.ts";

/** Where the runner finds the worlds these tests play. */
const parts = { registry: { world: (id: string) => (id === orderOps.id ? orderOps : deviceSupport) } };

const makers = {
  "learner.q@1": (seed: number) => Learner.q({ rng: Rng.seeded(seed, "learner") }),
  "learner.pg@1": (seed: number) => Learner.pg({ rng: Rng.seeded(seed, "learner") }),
};

for (const [id, make] of Object.entries(makers)) {
  describe(id, () => {
    it("is deterministic: the same seeds train the same policy (same hash)", async () => {
      const hashes: string[] = [];
      for (let run = 0; run < 2; run++) {
        const learner = make(7);
        await trainLearner(parts, orderOps, learner, 60, Rng.seeded(7, "tasks"));
        hashes.push(learner.policy().hash);
      }
      assert.equal(hashes[0], hashes[1]);
      const other = make(8);
      await trainLearner(parts, orderOps, other, 60, Rng.seeded(7, "tasks"));
      assert.notEqual(other.policy().hash, hashes[0]);
    });

    it("saves as plain JSON with its version and history; restores; a tampered policy is refused", async () => {
      const learner = make(1);
      await trainLearner(parts, deviceSupport, learner, 30, Rng.seeded(1, "tasks"));
      const policy = learner.policy();
      assert.equal(policy.learner, id);
      assert.equal(policy.version, 1);
      assert.equal(policy.history.updates, 30);
      const json = JSON.parse(JSON.stringify(policy));
      assert.deepEqual(json, policy);
      const restored = Learner.restore(json);
      assert.equal(restored.policy().hash, policy.hash);
      // restored, it goes on exactly as the original does
      await trainLearner(parts, deviceSupport, learner, 10, Rng.seeded(2, "tasks"));
      await trainLearner(parts, deviceSupport, restored, 10, Rng.seeded(2, "tasks"));
      assert.equal(restored.policy().hash, learner.policy().hash);
      json.history.passes += 1;
      assert.throws(
        () => Learner.restore(json),
        (e: unknown) => e instanceof ProvingError && e.code === "bad_agent_spec",
      );
    });

    it("frozen, it plays greedily and never updates", async () => {
      const learner = make(3);
      await trainLearner(parts, deviceSupport, learner, 20, Rng.seeded(3, "tasks"));
      learner.frozen = true;
      const params = JSON.stringify(learner.policy().params);
      const rng = JSON.stringify(learner.policy().rng);
      const request = { family: "needs-approval", difficulty: 2, seed: 11 };
      const a = await playEpisodes(parts, deviceSupport, learner, [request]);
      const b = await playEpisodes(parts, deviceSupport, learner, [request]);
      assert.deepEqual(a, b);
      assert.equal(JSON.stringify(learner.policy().params), params);
      assert.equal(JSON.stringify(learner.policy().rng), rng);
      assert.equal(learner.policy().history.updates, 20);
    });

    it("needs the admissible actions with the observation", async () => {
      const session = make(1).start({
        episodeId: "e",
        world: "w",
        instruction: "",
        tools: [],
        samplingSeed: 1,
      });
      const obs: Observation = { kind: "task", instruction: "", context: {}, tools: [] };
      await assert.rejects(
        session.act(obs),
        (e: unknown) => e instanceof ProvingError && e.code === "capability_missing",
      );
      const only: AdmissibleAction[] = [{ tool: "wait", args: { seconds: 5 } }];
      assert.deepEqual(await session.act(obs, { admissible: only }), { tool: "wait", args: { seconds: 5 } });
    });

    it("an infrastructure outcome teaches nothing", async () => {
      const learner = make(1);
      const session = learner.start({
        episodeId: "e",
        world: "w",
        instruction: "",
        tools: [],
        samplingSeed: 1,
      });
      const obs: Observation = { kind: "task", instruction: "", context: {}, tools: [] };
      await session.act(obs, { admissible: [{ tool: "wait", args: { seconds: 5 } }] });
      const before = learner.policy().hash;
      await session.end({ episodeId: "e", outcome: "infra_error" });
      assert.equal(learner.policy().hash, before);
    });
  });
}
