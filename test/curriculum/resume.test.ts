/**
 * `proving curriculum run` keeps its whole history in the store and, killed with SIGKILL mid-run,
 * resumes with the same continuation: the same seed and history give the same next samples, so the
 * resumed run's episodes equal an uninterrupted run's. Also: `curriculum show`, and `--json`'s shape.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { parseJson, REPO_ROOT, runCli } from "../support/cli.ts";

const BIN = fileURLToPath(new URL("../../bin/proving.mjs", import.meta.url));
const SPLIT_YAML = `name: resume-test
regression:
  version: 1
  tasks:
    - { world: device-support@1, family: lost-reply, difficulty: 2, seeds: [1, 2] }
    - { world: device-support@1, family: denied, difficulty: 1, seed: 3 }
dynamic:
  worlds: [device-support@1]
  families: [approved-replacement, needs-approval, denied, lost-reply]
  difficulties: [1, 2]
heldout:
  families: [unverifiable]
  difficulties: [2]
`;

let dir: string;
let store: string;
let splits: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-curriculum-"));
  store = path.join(dir, "store.db");
  splits = path.join(dir, "splits.yaml");
  fs.writeFileSync(splits, SPLIT_YAML);
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const args = (id: string) => [
  "curriculum",
  "run",
  "--agent",
  "new-key-retry",
  "--episodes",
  "36",
  "--eval-every",
  "12",
  "--snapshot-every",
  "5",
  "--seed",
  "3",
  "--splits",
  splits,
  "--id",
  id,
  "--store",
  store,
  "--json",
];

interface RunJson {
  id: string;
  strategy: string;
  manifest_hash: string;
  episodes: {
    index: number;
    world: string;
    family: string;
    difficulty: number;
    split: string;
    seed: number;
    outcome: string;
    passed: boolean;
  }[];
  regression: { after_episode: number; planned: number; passed: number; manifest_hash: string }[];
  heldout: { after_episode: number; planned: number; passed: number }[];
  snapshot: { sampler: { strategy: string } };
}

function episodesStored(id: string): number {
  if (!fs.existsSync(store)) return 0;
  const db = new Database(store, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("select count(*) as n from curriculum_episodes where run_id = ?").get(id) as {
      n: number;
    };
    return row.n;
  } catch {
    return 0;
  } finally {
    db.close();
  }
}

const strip = (r: RunJson) =>
  r.episodes.map(({ index, family, difficulty, split, seed, outcome }) => ({
    index,
    family,
    difficulty,
    split,
    seed,
    outcome,
  }));

test("killed with SIGKILL mid-run, the run resumes with the same continuation as an uninterrupted one", async () => {
  const clean = parseJson<RunJson>(await runCli(args("clean")));
  assert.equal(clean.episodes.length, 36);
  assert.equal(clean.strategy, "plr");
  for (const e of clean.episodes) {
    for (const k of ["index", "world", "family", "difficulty", "split", "seed", "outcome", "passed"])
      assert.ok(k in e, k);
  }
  assert.deepEqual(
    clean.regression.map((r) => r.after_episode),
    [12, 24, 36],
  );
  assert.ok(clean.regression.every((r) => r.manifest_hash === clean.manifest_hash && r.planned === 3));
  assert.equal(clean.heldout.length, 3);

  // start the same run under another id and kill it mid-run
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(process.execPath, [BIN, ...args("killed")], { cwd: REPO_ROOT, env, stdio: "ignore" });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const deadline = Date.now() + 120_000;
  while (episodesStored("killed") < 14 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  child.kill("SIGKILL");
  await exited;
  const cut = episodesStored("killed");
  assert.ok(cut >= 14 && cut < 36, `killed after ${cut} episodes`);

  const resumed = parseJson<RunJson & { ran_now: number }>(await runCli(args("killed")));
  // it ran only what was left (the store may hold one episode more than our reader saw at the kill)
  assert.ok(resumed.ran_now >= 1 && resumed.ran_now <= 36 - 14, `ran ${resumed.ran_now}`);
  assert.deepEqual(strip(resumed), strip(clean));
  assert.deepEqual(
    resumed.regression.map(({ after_episode, planned, passed, manifest_hash }) => ({
      after_episode,
      planned,
      passed,
      manifest_hash,
    })),
    clean.regression.map(({ after_episode, planned, passed, manifest_hash }) => ({
      after_episode,
      planned,
      passed,
      manifest_hash,
    })),
  );
  assert.deepEqual(resumed.snapshot, clean.snapshot);

  const shown = parseJson<RunJson>(
    await runCli(["curriculum", "show", "killed", "--store", store, "--json"]),
  );
  assert.deepEqual(strip(shown), strip(clean));
  const missing = await runCli(["curriculum", "show", "nope", "--store", store]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /unknown_curriculum_run/);
});
