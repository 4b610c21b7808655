/**
 * Serial ≡ concurrent: the same manifest run one trial at a time and 64 at a time (with agents that
 * answer after random real delays, so trials interleave and finish out of order, and once more with
 * workers reusing their world instances) gives identical outcomes, verdicts and trajectory hashes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ResolvedAgent } from "../../src/agents/resolve.ts";
import type { Agent, TrialRecord } from "../../src/core/contracts.ts";
import { hashJson } from "../../src/core/hash.ts";
import { Rng } from "../../src/core/rng.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { resolveAgents } from "../../src/runner/plan.ts";
import { runExperiment } from "../../src/runner/run.ts";

/** Wraps an agent so each act() answers after a random 0–2 ms real delay (the actions are unchanged). */
function jittered(agent: Agent, rng: Rng): Agent {
  return {
    id: agent.id,
    async start(episode) {
      const inner = await agent.start(episode);
      return {
        async act(obs) {
          await new Promise((resolve) => setTimeout(resolve, rng.int(0, 2)));
          return inner.act(obs);
        },
      };
    },
  };
}

interface Seen {
  outcome: string;
  verdict: string;
  trajectory: string;
}

test("serial and concurrent runs of the same 600-trial manifest agree trial by trial", async () => {
  const registry = defaultGym().registry;
  const world = registry.world("device-support@1");
  const config = parseExperiment({
    id: "serial-vs-concurrent",
    worlds: ["device-support@1"],
    difficulties: [1, 2, 3, 4, 5],
    trials: 3,
    agents: Object.keys(world.policies),
  });
  const plain = await resolveAgents(config, registry, defaultGym().resolveAgent, process.cwd());
  const rng = Rng.seeded(20240601, "jitter");
  const slow: ResolvedAgent[] = plain.map((a) => ({
    ref: a.ref,
    forWorld: (w) => jittered(a.forWorld(w), rng),
  }));

  const run = async (concurrency: number, agents: ResolvedAgent[], reuseEnvironments = false) => {
    const seen = new Map<string, Seen>();
    const order: string[] = [];
    const result = await runExperiment(config, {
      registry,
      concurrency,
      agents,
      reuseEnvironments,
      onTrial: (r: TrialRecord) => {
        order.push(r.spec.id);
        seen.set(r.spec.id, {
          outcome: r.outcome,
          verdict: hashJson(r.verdict ?? null),
          trajectory: r.trajectoryHash,
        });
      },
    });
    return { result, seen, order };
  };

  const serial = await run(1, plain);
  const concurrent = await run(64, slow);
  const pooled = await run(64, slow, true);

  const planned = serial.result.manifest.length;
  assert.equal(planned, 600, "5 policies × 8 families × 5 difficulties × 3 seeds");
  assert.deepEqual(
    serial.order,
    serial.result.manifest.map((s) => s.id),
    "serial runs in manifest order",
  );
  assert.notDeepEqual(concurrent.order, serial.order, "the concurrent run really interleaved");
  assert.notDeepEqual(pooled.order, serial.order);
  for (const other of [concurrent, pooled]) {
    assert.equal(other.seen.size, planned);
    let differing = 0;
    for (const [id, s] of serial.seen) {
      const o = other.seen.get(id);
      assert.ok(o, `trial ${id} missing from the concurrent run`);
      if (o.outcome !== s.outcome || o.verdict !== s.verdict || o.trajectory !== s.trajectory) differing++;
    }
    assert.equal(differing, 0, `${differing} of ${planned} trials differ between serial and concurrent runs`);
  }
  const outcomes = new Set([...serial.seen.values()].map((s) => s.outcome));
  assert.ok(
    outcomes.has("passed") && outcomes.has("violated"),
    "the comparison covers passes and violations",
  );
  assert.equal(serial.result.trials.filter((t) => t.outcome === "contaminated").length, 0);
  // trajectory hashes really are per trial: different policies on the same task differ
  assert.ok(new Set([...serial.seen.values()].map((s) => s.trajectory)).size > planned / 2);
});
