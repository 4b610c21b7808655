/**
 * Isolation traps: a broken reset, a leaked callback, a job firing into the wrong episode, state
 * shared between trials. Each is made to happen on purpose (test/honest/support/leaky-world.ts) and
 * the runner must mark exactly the affected trials `contaminated`, every time.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { inspectionOf } from "../../src/core/capabilities.ts";
import type { Environment, TrialRecord, TrialSpec } from "../../src/core/contracts.ts";
import type { Job } from "../../src/core/scheduler.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { EnvironmentPool } from "../../src/runner/env-pool.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { expandManifest } from "../../src/runner/manifest.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { runTrial } from "../../src/runner/trial.ts";
import { type Defect, LEAKY_ID, type LeakyKit, leakyKit } from "./support/leaky-world.ts";

const ids = (records: TrialRecord[], pred: (r: TrialRecord) => boolean) =>
  new Set(records.filter(pred).map((r) => r.spec.id));
const contaminated = (records: TrialRecord[]) => ids(records, (r) => r.outcome === "contaminated");
const sorted = (s: Set<string>) => [...s].sort();

/** The planned trials of the worker on `trials` seeds at difficulty 1, without running them. */
function leakySpecs(kit: LeakyKit, trials: number): TrialSpec[] {
  const config = parseExperiment({ worlds: [LEAKY_ID], difficulties: [1], trials, agents: ["worker"] });
  return expandManifest("late", config, [{ id: "worker", kind: "scripted", spec: "worker" }], kit.registry);
}

async function runLeaky(
  defect: Defect,
  opts: { reuse?: boolean; concurrency?: number; agents?: string[]; trials?: number; check?: boolean } = {},
) {
  const kit = leakyKit(defect);
  const records: TrialRecord[] = [];
  const config = parseExperiment({
    id: `leaky-${defect}`,
    worlds: [LEAKY_ID],
    difficulties: [1, 2, 3],
    trials: opts.trials ?? 8,
    agents: opts.agents ?? ["worker"],
  });
  const result = await runExperiment(config, {
    registry: kit.registry,
    concurrency: opts.concurrency ?? 1,
    ...(opts.reuse ? { reuseEnvironments: true } : {}),
    ...(opts.check === false ? { checkCleanStart: false } : {}),
    onTrial: (r) => records.push(r),
  });
  assert.equal(records.length, result.manifest.length, "one record per planned trial");
  return { kit, records, result };
}

describe("per-trial namespace", () => {
  test("every trial gets its own world instance and scheduler, and never sees another trial's job", async () => {
    const registry = defaultGym().registry;
    const world = registry.world("device-support@1");
    const episodesByInstance = new Map<Environment, Set<string>>();
    const schedulerViews = new Map<readonly Job[], Environment>();
    const crossings: string[] = [];
    const instrumented = (_spec: TrialSpec): Environment => {
      const env = world.create();
      const episodes = new Set<string>();
      episodesByInstance.set(env, episodes);
      let episode = "";
      const reset = env.reset.bind(env);
      const step = env.step.bind(env);
      env.reset = async (opts) => {
        episode = opts.episodeId ?? "";
        episodes.add(episode);
        const obs = await reset(opts);
        const view = inspectionOf(env).pendingJobs();
        const owner = schedulerViews.get(view);
        if (owner && owner !== env) crossings.push(`${episode}: scheduler shared with another instance`);
        schedulerViews.set(view, env);
        return obs;
      };
      env.step = async (action) => {
        const result = await step(action);
        for (const job of inspectionOf(env).pendingJobs()) {
          if (job.owner !== episode) crossings.push(`${episode}: sees job of ${job.owner}`);
        }
        return result;
      };
      return env;
    };
    const config = parseExperiment({
      id: "namespace",
      worlds: ["device-support@1"],
      difficulties: [1, 3],
      trials: 2,
      agents: Object.keys(world.policies),
    });
    const result = await runExperiment(config, { registry, concurrency: 64, environment: instrumented });
    const planned = result.manifest.length;
    assert.equal(planned, 5 * 8 * 2 * 2);
    assert.deepEqual(crossings, []);
    assert.equal(result.trials.filter((t) => t.outcome === "contaminated").length, 0);
    // the trial's own instance, its reference and its probe: each reset for exactly one episode
    const trialEpisodes = new Set(result.manifest.map((s) => s.id));
    const perTrial = new Map<string, number>();
    for (const episodes of episodesByInstance.values()) {
      assert.equal(episodes.size, 1, "an instance served more than one episode");
      const [e] = episodes;
      if (trialEpisodes.has(e)) perTrial.set(e, (perTrial.get(e) ?? 0) + 1);
    }
    assert.equal(perTrial.size, planned, "every trial ran on instances of its own");
    assert.ok(
      [...perTrial.values()].every((n) => n === 2),
      "its instance and its fresh reference, no other",
    );
  });

  test("with fresh instances per trial (the default) a broken reset cannot bite", async () => {
    for (const defect of ["keeps-receipts", "keeps-jobs", "hidden-jobs"] as const) {
      const { kit, records } = await runLeaky(defect, { concurrency: 4 });
      assert.equal(kit.truth.dirtyStarts.size + kit.truth.foreignFired.size, 0, defect);
      assert.deepEqual(
        records.map((r) => r.outcome),
        records.map(() => "passed"),
        defect,
      );
    }
  });
});

describe("a broken reset on a reused instance is caught every time", () => {
  for (const concurrency of [1, 4]) {
    test(`reset leaves a receipt behind (concurrency ${concurrency})`, async () => {
      const { kit, records } = await runLeaky("keeps-receipts", { reuse: true, concurrency });
      assert.ok(kit.truth.dirtyStarts.size >= 4, `the bug bit ${kit.truth.dirtyStarts.size} times`);
      assert.deepEqual(sorted(contaminated(records)), sorted(kit.truth.dirtyStarts));
      for (const r of records.filter((x) => x.outcome === "contaminated")) {
        assert.match(r.reason, /start state differs from a freshly built instance: reset left state behind/);
        assert.equal(r.steps.length, 0, "a contaminated trial does not run its agent");
      }
      assert.ok(records.every((r) => r.outcome === "contaminated" || r.outcome === "passed"));
    });

    test(`reset leaves the previous episode's scheduled job pending (concurrency ${concurrency})`, async () => {
      const { kit, records } = await runLeaky("keeps-jobs", { reuse: true, concurrency });
      assert.ok(kit.truth.dirtyStarts.size >= 1, `the bug bit ${kit.truth.dirtyStarts.size} times`);
      assert.deepEqual(sorted(contaminated(records)), sorted(kit.truth.dirtyStarts));
      for (const r of records.filter((x) => x.outcome === "contaminated")) {
        assert.match(
          r.reason,
          /background job\(s\) owned by another episode \(t-[0-9a-f]+\) pending at start/,
        );
      }
    });

    test(`a hidden job of the previous episode fires into the next one (concurrency ${concurrency})`, async () => {
      const { kit, records } = await runLeaky("hidden-jobs", { reuse: true, concurrency });
      assert.ok(kit.truth.foreignFired.size >= 1, `the bug bit ${kit.truth.foreignFired.size} times`);
      assert.deepEqual(sorted(contaminated(records)), sorted(kit.truth.foreignFired));
      for (const r of records.filter((x) => x.outcome === "contaminated")) {
        assert.match(r.reason, /background job\(s\) of another episode fired during the trial/);
        assert.ok(r.verdict, "the leak is found after the episode, with its verdict kept for inspection");
      }
    });
  }

  test("the same checks on the clean device-support world flag nothing, and reuse really happens", async () => {
    const registry = defaultGym().registry;
    const world = registry.world("device-support@1");
    let built = 0;
    const counting = () => {
      built++;
      return world.create();
    };
    const config = parseExperiment({
      id: "reuse-clean",
      worlds: ["device-support@1"],
      difficulties: [1, 2],
      trials: 2,
      agents: Object.keys(world.policies),
    });
    const fresh = await runExperiment(config, { registry, concurrency: 4 });
    const reused = await runExperiment(config, {
      registry,
      concurrency: 4,
      reuseEnvironments: true,
      environment: counting,
    });
    assert.equal(reused.trials.filter((t) => t.outcome === "contaminated").length, 0);
    const planned = reused.manifest.length;
    // each trial builds a reference and two probes (start, end); the trial instances are 4 (one per worker)
    assert.equal(built, 3 * planned + 4, "workers reused their instances");
    assert.deepEqual(
      reused.trials.map((t) => [t.trialId, t.outcome, t.trajectoryHash]),
      fresh.trials.map((t) => [t.trialId, t.outcome, t.trajectoryHash]),
    );
  });

  test("a runner without the clean-start check lets the broken reset through (the check is what catches it)", async () => {
    const { kit, records } = await runLeaky("keeps-receipts", { reuse: true, check: false });
    assert.ok(kit.truth.dirtyStarts.size > 0);
    assert.equal(contaminated(records).size, 0);
  });
});

describe("a callback that fires after its episode ended is reported", () => {
  test("a 0 ms timer armed at the end of the episode contaminates that trial (fresh and reused instances)", async () => {
    for (const reuse of [false, true]) {
      const { kit, records } = await runLeaky("late-timer", { reuse, concurrency: 4 });
      assert.equal(kit.truth.lateFired.size, records.length, "every episode's late callback fired");
      assert.deepEqual(sorted(contaminated(records)), sorted(kit.truth.lateFired));
      for (const r of records) {
        assert.match(
          r.reason,
          /the world changed after the episode ended: a callback or job fired after its episode/,
        );
      }
    }
  });

  test("a slower timer that fires between trials is caught when the instance is reused", async () => {
    const kit = leakyKit("late-timer", { lateDelayMs: 20 });
    const [first, second] = leakySpecs(kit, 2);
    const pool = new EnvironmentPool((_s, w) => w.create());
    const deps = { world: kit.world, agent: kit.world.policies.worker, pool };
    const a = await runTrial(first, deps);
    assert.equal(a.outcome, "passed", "the callback had not fired yet when the first trial ended");
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.ok(kit.truth.lateFired.has(first.id), "the late callback fired between the trials");
    const b = await runTrial(second, deps);
    assert.equal(b.outcome, "contaminated");
    assert.match(b.reason, new RegExp(`changed after episode ${first.id} ended and before this reset`));
    assert.equal(pool.stats.reused, 1);
  });

  test("without the after-episode check the late callback goes unnoticed", async () => {
    const kit = leakyKit("late-timer");
    const unchecked = await runTrial(leakySpecs(kit, 1)[0], {
      world: kit.world,
      agent: kit.world.policies.worker,
      checkAfterEnd: false,
    });
    assert.equal(unchecked.outcome, "passed");
  });
});

describe("state shared between trials (one agent's write satisfies another's test)", () => {
  test("the trap bites when unchecked: a lazy agent passes on the worker's receipt", async () => {
    const { kit, result } = await runLeaky("shared-db", {
      agents: ["worker", "lazy"],
      check: false,
      trials: 4,
    });
    const lazyPassed = result.trials.filter((t) => t.agent === "lazy" && t.outcome === "passed").length;
    assert.equal(lazyPassed, 12, "every lazy trial passed on another trial's write");
    assert.equal(kit.truth.crossed.size, 12);
  });

  for (const concurrency of [1, 8]) {
    test(`every trial that wrote or read shared state is contaminated (concurrency ${concurrency})`, async () => {
      const { kit, records } = await runLeaky("shared-db", {
        agents: ["worker", "lazy"],
        trials: 4,
        concurrency,
      });
      const flagged = contaminated(records);
      for (const id of [...kit.truth.crossed, ...kit.truth.dirtyStarts, ...kit.truth.wroteShared]) {
        assert.ok(flagged.has(id), `${id} touched another trial's state but was not flagged`);
      }
      assert.ok(kit.truth.wroteShared.size === 12, "every worker trial wrote to the shared map");
      const lazyPasses = records.filter((r) => r.spec.agent.id === "lazy" && r.outcome === "passed");
      assert.deepEqual(lazyPasses, [], "no lazy trial is credited with a pass");
      for (const r of records.filter((x) => x.outcome === "contaminated")) {
        assert.match(r.reason, /shared between trials/);
      }
    });
  }
});
