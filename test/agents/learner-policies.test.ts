/**
 * Learners' policies in the store: a run of `learner:q` saves its final policy to the run's store
 * (with its experiment, source and the run's clock); `learner:q?policy=ID` (hash or unique prefix)
 * and `proving run --policy FILE|ID` play it frozen, with the same outcomes and trajectories as the
 * same policy restored in memory; unknown, ambiguous and other-learner ids are coded errors.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import type { ResolvedAgent } from "../../src/agents/resolve.ts";
import { policyAgentSpec } from "../../src/cli/commands/policy-flag.ts";
import { Rng } from "../../src/core/rng.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { Learner } from "../../src/learners/learner.ts";
import type { LearnerPolicy } from "../../src/learners/policy.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { openStore } from "../../src/store/index.ts";
import { parseJson, runCli } from "../support/cli.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-learner-policies-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const CLOCK = () => new Date("2026-03-04T05:06:07.000Z");
const experiment = (agent: string, id: string) =>
  parseExperiment({
    id,
    worlds: ["device-support@1"],
    difficulties: [1],
    trials: 2,
    agents: [agent],
    budget: { maxSteps: 40 },
  });

const outcomes = (r: Awaited<ReturnType<typeof runExperiment>>) =>
  r.trials.map((t) => [t.family, t.seed, t.outcome, t.steps, t.trajectoryHash]);

describe("learner policies in the store", () => {
  test("a learner's run saves its policy; policy=ID (hash or prefix) plays it frozen like the policy in memory", async () => {
    const gym = defaultGym();
    const store = await openStore(path.join(dir, "lib.db"));
    try {
      const trained = await runExperiment(experiment("learner:q?seed=4", "train"), {
        ...gym.runOptions(),
        store,
        now: CLOCK,
      });
      assert.equal(trained.policies?.length, 1);
      const { policy: hash, saved } = trained.policies![0];
      assert.equal(saved, true);
      const [listed] = await store.listPolicies();
      assert.equal(listed.hash, hash);
      assert.equal(listed.learner, "learner.q@1");
      assert.equal(listed.experimentId, "train");
      assert.equal(listed.source, "run");
      assert.equal(listed.createdAt, CLOCK().toISOString());
      assert.equal((listed.history as { updates: number }).updates, trained.trials.length);
      const policy = (await store.getPolicy(hash)).policy as unknown as LearnerPolicy;
      assert.equal(policy.hash, hash);

      // frozen by id and by prefix: the same outcomes and trajectories as the policy restored in memory
      const byId = await runExperiment(experiment(`learner:q?policy=${hash}`, "by-id"), {
        ...gym.runOptions(),
        store,
      });
      const byPrefix = await runExperiment(experiment(`learner:q?policy=${hash.slice(0, 6)}`, "by-prefix"), {
        ...gym.runOptions(),
        store,
      });
      const inMemory = Learner.restore(policy, { frozen: true });
      const ref = { id: "memory", kind: "learner", spec: "memory" };
      const memoryAgent: ResolvedAgent = { ref, forWorld: () => inMemory };
      const memory = await runExperiment(experiment("memory", "memory"), {
        ...gym.runOptions(),
        agents: [memoryAgent],
      });
      assert.ok(memory.trials.every((t) => t.outcome !== "infra_error" && t.outcome !== "missing"));
      assert.deepEqual(outcomes(byId), outcomes(memory));
      assert.deepEqual(outcomes(byPrefix), outcomes(memory));
      // a frozen learner changes nothing and saves nothing new
      assert.deepEqual(byId.policies, [{ agent: `learner:q?policy=${hash}`, policy: hash, saved: false }]);
      assert.equal((await store.listPolicies()).length, 1);
      // train=1 continues from the stored policy: a new policy, saved with its provenance
      const more = await runExperiment(experiment(`learner:q?policy=${hash}&train=1`, "more"), {
        ...gym.runOptions(),
        store,
        now: CLOCK,
      });
      assert.notEqual(more.policies?.[0].policy, hash);
      assert.equal(
        (await store.getPolicy(more.policies![0].policy)).history.updates,
        trained.trials.length * 2,
      );
    } finally {
      await store.close();
    }
  });

  test("unknown, ambiguous and other-learner ids are coded config errors", async () => {
    const gym = defaultGym();
    const store = await openStore(path.join(dir, "errors.db"));
    try {
      const pg = Learner.pg({ rng: Rng.seeded(1, "t") }).policy();
      const fake = (hash: string) => ({
        hash,
        learner: "learner.q@1",
        version: 1,
        history: {},
        source: "run",
        createdAt: "2026-01-01T00:00:00.000Z",
        policy: {},
      });
      await store.savePolicy(fake("beef0001aaaaaaaa"));
      await store.savePolicy(fake("beef0002aaaaaaaa"));
      await store.savePolicy({ ...fake(pg.hash), learner: pg.learner, policy: pg as never });
      const resolve = (spec: string, policies = store) =>
        gym.resolveAgent(spec, { cwd: dir, worlds: [gym.world("device-support@1")], policies });
      await assert.rejects(resolve("learner:q?policy=beef"), { code: "ambiguous_policy" });
      await assert.rejects(resolve("learner:q?policy=dead0000"), { code: "unknown_policy" });
      await assert.rejects(resolve("learner:q?policy=no-such-file.json"), { code: "unknown_policy" });
      await assert.rejects(resolve(`learner:q?policy=${pg.hash}`), { code: "policy_mismatch" });
      await assert.rejects(resolve("learner:q?policy=beef0001"), { code: "bad_policy" });
      await assert.rejects(
        gym.resolveAgent(`learner:pg?policy=${pg.hash}`, { cwd: dir, worlds: [] }),
        { code: "unknown_policy" },
        "no store to look it up in",
      );
      assert.ok(await resolve(`learner:pg?policy=${pg.hash.slice(0, 5)}`));
      await assert.rejects(policyAgentSpec(pg.hash, { agent: ["cautious"] }), (err: Error) =>
        /--policy names the agent/.test(err.message),
      );
    } finally {
      await store.close();
    }
  });

  test("proving run --policy FILE|ID and proving policies, over the CLI", async () => {
    const db = path.join(dir, "cli.db");
    const run = (id: string, extra: string[]) =>
      runCli(
        [
          "run",
          "--world",
          "device-support@1",
          "--difficulty",
          "1",
          "--trials",
          "2",
          "--max-steps",
          "40",
          "--id",
          id,
          "--store",
          db,
          "--json",
          "--no-report",
          ...extra,
        ],
        { cwd: dir },
      );
    const trained = await run("cli-train", ["--agent", "learner:q?seed=2&save=cli.json"]);
    assert.equal(trained.code, 0, trained.stderr);
    const [p] = parseJson<{ policies: { policy: string; saved: boolean }[] }>(trained).policies;
    assert.equal(p.saved, true);
    const list = await runCli(["policies", "--store", db, "--json"], { cwd: dir });
    assert.equal(list.code, 0, list.stderr);
    const listed = parseJson<{ policies: { hash: string; experimentId: string }[] }>(list).policies;
    assert.deepEqual(
      listed.map((x) => [x.hash, x.experimentId]),
      [[p.policy, "cli-train"]],
    );

    const trialsOf = (r: Awaited<ReturnType<typeof runCli>>) =>
      parseJson<{ trials: { family: string; seed: number; outcome: string; steps: number }[] }>(r).trials.map(
        (t) => [t.family, t.seed, t.outcome, t.steps],
      );
    const byId = await run("cli-id", ["--policy", p.policy.slice(0, 7)]);
    assert.equal(byId.code, 0, byId.stderr);
    const byFile = await run("cli-file", ["--policy", "cli.json"]);
    assert.equal(byFile.code, 0, byFile.stderr);
    assert.deepEqual(trialsOf(byFile), trialsOf(byId));
    assert.equal(parseJson<{ policies: { saved: boolean }[] }>(byId).policies[0].saved, false);

    const unknown = await run("cli-unknown", ["--policy", "0000ffff"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown_policy|no policy 0000ffff/);
  });

  test("proving curriculum run --policy ID plays a stored policy frozen (nothing learned, nothing saved)", async () => {
    const gym = defaultGym();
    const db = path.join(dir, "cur.db");
    const store = await openStore(db);
    let hash: string;
    try {
      const trained = await runExperiment(experiment("learner:q?seed=7", "cur-train"), {
        ...gym.runOptions(),
        store,
      });
      hash = trained.policies![0].policy;
    } finally {
      await store.close();
    }
    const out = await runCli(
      [
        "curriculum",
        "run",
        "--policy",
        hash.slice(0, 6),
        "--episodes",
        "4",
        "--eval-every",
        "4",
        "--max-steps",
        "30",
        "--id",
        "cur-frozen",
        "--store",
        db,
        "--json",
      ],
      { cwd: dir },
    );
    assert.equal(out.code, 0, out.stderr);
    assert.equal(parseJson<{ episodes: unknown[] }>(out).episodes.length, 4);
    const after = await openStore(db);
    try {
      assert.deepEqual(
        (await after.listPolicies()).map((p) => p.hash),
        [hash],
        "a frozen policy saves no checkpoint and no new policy",
      );
    } finally {
      await after.close();
    }
  });
});
