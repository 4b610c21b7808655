/**
 * A curriculum run with a learner (`learner:q`) checkpoints its policy with each sampler snapshot (in
 * the store's policies table, the snapshot naming it; inline without a store), and a resumed run
 * restores it and plays again, in memory, the episodes recorded after that snapshot: stopped after K
 * episodes (K not on a snapshot) and resumed by a fresh process's agent, it ends with the same policy
 * hash, episodes and evaluations as an uninterrupted run.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
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
import { parseJson, runCli } from "../support/cli.ts";
import { SPLIT } from "./fixtures/split.ts";
import { CLI_BIN, splitYaml } from "./support.ts";

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

test("killed with SIGKILL mid-run and resumed over the CLI, the learner ends with an uninterrupted run's policy", async () => {
  const store = path.join(dir, "cli.db");
  const splits = path.join(dir, "splits.yaml");
  fs.writeFileSync(splits, splitYaml("learner-resume"));
  const args = (id: string) => [
    "curriculum",
    "run",
    "--agent",
    `learner:q?seed=2&eps=0.3&save=${id}.json`,
    "--episodes",
    "16",
    "--eval-every",
    "8",
    "--snapshot-every",
    "5",
    "--max-steps",
    "30",
    "--seed",
    "4",
    "--splits",
    splits,
    "--id",
    id,
    "--store",
    store,
    "--json",
  ];
  const hashOf = (id: string) => JSON.parse(fs.readFileSync(path.join(dir, `${id}.json`), "utf8")).hash;
  const clean = await runCli(args("clean"), { cwd: dir });
  assert.equal(clean.code, 0, clean.stderr);

  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(process.execPath, [CLI_BIN, ...args("killed")], { cwd: dir, env, stdio: "ignore" });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const stored = () => {
    if (!fs.existsSync(store)) return 0;
    const db = new Database(store, { readonly: true, fileMustExist: true });
    try {
      return (
        db.prepare("select count(*) as n from curriculum_episodes where run_id = 'killed'").get() as {
          n: number;
        }
      ).n;
    } catch {
      return 0;
    } finally {
      db.close();
    }
  };
  const deadline = Date.now() + 60_000;
  while (stored() < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  child.kill("SIGKILL");
  await exited;
  const cut = stored();
  assert.ok(cut >= 7 && cut < 16, `killed after ${cut} episodes`);
  assert.equal(fs.existsSync(path.join(dir, "killed.json")), false, "the killed run saved nothing");

  const resumed = await runCli(args("killed"), { cwd: dir });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(hashOf("killed"), hashOf("clean"), `killed after ${cut} episodes, resumed: the same policy`);
  assert.equal(parseJson<{ policy: string }>(resumed).policy, hashOf("clean"), "--json names the policy");
});
