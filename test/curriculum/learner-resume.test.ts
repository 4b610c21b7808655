/**
 * A curriculum run with a learner (`learner:q`) checkpoints its policy with each sampler snapshot (in
 * the store's policies table, the snapshot naming it; inline without a store), and a resumed run
 * restores it and plays again, in memory, the episodes recorded after that snapshot: stopped after K
 * episodes (K not on a snapshot) and resumed by a fresh process's agent, it ends with the same policy
 * hash, episodes and evaluations as an uninterrupted run.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { ResolvedAgent } from "../../src/agents/resolve.ts";
import {
  type CurriculumHistory,
  curriculumConfig,
  MemoryHistory,
  openCurriculumStore,
  runCurriculum,
} from "../../src/curriculum/index.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { SPLIT } from "./fixtures/split.ts";

const gym = defaultGym();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cur-learner-resume-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const EPISODES = 14;
const config = (id: string) =>
  curriculumConfig({
    id,
    split: SPLIT,
    agent: "learner:q?seed=5&eps=0.3",
    episodes: EPISODES,
    evalEvery: 7,
    snapshotEvery: 4,
    seed: 3,
    budget: { maxSteps: 30, maxVirtualSeconds: 86400, wallTimeoutMs: 60000 },
  });

/** The agent as a new process resolves it (a fresh learner: the run restores its policy). */
const learner = (store?: Store): Promise<ResolvedAgent> =>
  gym.resolveAgent("learner:q?seed=5&eps=0.3", {
    cwd: dir,
    worlds: [gym.world("device-support@1")],
    ...(store ? { policies: store } : {}),
  });

async function run(id: string, history: CurriculumHistory, store: Store | undefined, stopAfter?: number) {
  const agent = await learner(store);
  const abort = new AbortController();
  const result = await runCurriculum(config(id), {
    gym,
    history,
    agent,
    ...(store ? { store } : {}),
    signal: abort.signal,
    onEpisode: (e) => {
      if (e.index === stopAfter) abort.abort();
    },
  });
  return { result, policy: agent.checkpoint!() };
}

const view = (r: Awaited<ReturnType<typeof run>>["result"]) => ({
  episodes: r.episodes.map((e) => [e.family, e.difficulty, e.seed, e.outcome]),
  regression: r.regression.map((e) => [e.after_episode, e.passed]),
});

test("stopped after K episodes and resumed, a learner ends with the policy of an uninterrupted run (store)", async () => {
  const file = path.join(dir, "store.db");
  const history = await openCurriculumStore(file);
  const store = await openStore(file);
  try {
    const clean = await run("clean", history, store);
    assert.equal(clean.result.episodes.length, EPISODES);
    assert.equal(clean.policy.history.updates, EPISODES);

    const cut = await run("cut", history, store, 6); // snapshot after 4: episodes 5-6 are played again
    assert.equal(cut.result.interrupted, true);
    assert.equal(cut.result.episodes.length, 6);
    // the store holds the stopped run's latest checkpoint (the one its last snapshot names), no earlier
    // one, and the policy it stopped with (its end saves it)
    const held = (await store.listPolicies()).filter((p) => p.experimentId === "cut");
    assert.deepEqual(held.map((p) => p.source).sort(), ["checkpoint@4", "run"]);
    assert.equal(held.find((p) => p.source === "run")?.history.updates, 6);
    const resumed = await run("cut", history, store);
    assert.equal(resumed.result.ranNow, EPISODES - 6);
    assert.equal(resumed.policy.hash, clean.policy.hash, "the same final policy");
    assert.deepEqual(view(resumed.result), view(clean.result));

    // the last episode's snapshot checkpointed the final policy (so the run's end adds no row)
    const final = await store.getPolicy(clean.policy.hash);
    assert.deepEqual([final.source, final.experimentId], [`checkpoint@${EPISODES}`, "clean"]);
  } finally {
    await history.close();
    await store.close();
  }
});

test("without a store, a resume plays every recorded episode again for a fresh agent: the same policy", async () => {
  const history = new MemoryHistory();
  const clean = await run("clean", new MemoryHistory(), undefined);
  await run("cut", history, undefined, 9);
  const resumed = await run("cut", history, undefined);
  assert.equal(resumed.policy.hash, clean.policy.hash);
  assert.deepEqual(view(resumed.result), view(clean.result));
});
