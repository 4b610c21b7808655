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
import Database from "better-sqlite3";
import { parseJson, REPO_ROOT, runCli } from "../support/cli.ts";
import { CLI_BIN, type CurriculumRunJson, episodeView, regressionView, splitYaml } from "./support.ts";

let dir: string;
let store: string;
let splits: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-curriculum-"));
  store = path.join(dir, "store.db");
  splits = path.join(dir, "splits.yaml");
  fs.writeFileSync(splits, splitYaml("resume-test"));
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

test("killed with SIGKILL mid-run, the run resumes with the same continuation as an uninterrupted one", async () => {
  const clean = parseJson<CurriculumRunJson>(await runCli(args("clean")));
  assert.equal(clean.episodes.length, 36);
  assert.equal(clean.strategy, "learnability");
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
  const child = spawn(process.execPath, [CLI_BIN, ...args("killed")], {
    cwd: REPO_ROOT,
    env,
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const deadline = Date.now() + 120_000;
  while (episodesStored("killed") < 14 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  child.kill("SIGKILL");
  await exited;
  const cut = episodesStored("killed");
  assert.ok(cut >= 14 && cut < 36, `killed after ${cut} episodes`);

  const resumed = parseJson<CurriculumRunJson & { ran_now: number }>(await runCli(args("killed")));
  // it ran only what was left (the store may hold one episode more than our reader saw at the kill)
  assert.ok(resumed.ran_now >= 1 && resumed.ran_now <= 36 - 14, `ran ${resumed.ran_now}`);
  assert.deepEqual(episodeView(resumed.episodes), episodeView(clean.episodes));
  assert.deepEqual(regressionView(resumed), regressionView(clean));
  assert.deepEqual(resumed.snapshot, clean.snapshot);

  const shown = parseJson<CurriculumRunJson>(
    await runCli(["curriculum", "show", "killed", "--store", store, "--json"]),
  );
  assert.deepEqual(episodeView(shown.episodes), episodeView(clean.episodes));
  const missing = await runCli(["curriculum", "show", "nope", "--store", store]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /unknown_curriculum_run/);
});
