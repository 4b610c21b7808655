/**
 * Durable manifests and resume, with a real process: `proving run --id NAME` in a child process,
 * killed (SIGKILL, once SIGTERM) at random points, then `proving resume NAME` until done. No planned
 * trial may be lost, none recorded twice, none that was recorded may run again, and the result must be
 * the uninterrupted run's: the same trial set and the same trajectory hashes.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { Rng } from "../../src/core/rng.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { openStore } from "../../src/store/open-store.ts";
import { runCliToEnd, startCli } from "./support/child.ts";

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-kill-"));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const ID = "killed";
const DIFFICULTIES = [1, 2, 3];
const TRIALS = 5;
const PLANNED = 8 * DIFFICULTIES.length * TRIALS;

interface Snapshot {
  exists: boolean;
  status?: string;
  manifest: number;
  /** trial id → "finishedAt trajectoryHash" (changes if the trial ran again). */
  records: Map<string, string>;
  /** rows in the trials table, and distinct trial ids among them. */
  rows: number;
  distinct: number;
  duplicateSteps: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Trials of the experiment recorded so far, read while the child writes (WAL: readers do not block it). */
function recordedNow(file: string): number {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare("SELECT COUNT(*) AS n FROM trials WHERE experiment_id = ?").get(ID) as {
        n: number;
      };
      return row.n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

async function snapshot(file: string): Promise<Snapshot> {
  if (!fs.existsSync(file))
    return { exists: false, manifest: 0, records: new Map(), rows: 0, distinct: 0, duplicateSteps: 0 };
  const store = await openStore(file);
  try {
    const exp = await store.getExperiment(ID);
    if (!exp)
      return { exists: false, manifest: 0, records: new Map(), rows: 0, distinct: 0, duplicateSteps: 0 };
    const manifest = await store.getManifest(ID);
    const planned = new Set(manifest.map((s) => s.id));
    const records = new Map<string, string>();
    for (const t of await store.listTrials(ID)) {
      assert.ok(planned.has(t.trialId), `recorded trial ${t.trialId} is not in the manifest`);
      records.set(t.trialId, `${t.finishedAt} ${t.trajectoryHash}`);
    }
    const db = new Database(file);
    try {
      const counts = db
        .prepare("SELECT COUNT(*) AS n, COUNT(DISTINCT trial_id) AS d FROM trials WHERE experiment_id = ?")
        .get(ID) as { n: number; d: number };
      const dup = db
        .prepare(
          "SELECT COUNT(*) AS n FROM (SELECT trial_id, idx FROM steps GROUP BY trial_id, idx HAVING COUNT(*) > 1)",
        )
        .get() as { n: number };
      return {
        exists: true,
        status: exp.status,
        manifest: manifest.length,
        records,
        rows: counts.n,
        distinct: counts.d,
        duplicateSteps: dup.n,
      };
    } finally {
      db.close();
    }
  } finally {
    await store.close();
  }
}

test("kill -9 at random points + resume: every planned trial recorded exactly once, as if never interrupted", async (t) => {
  const seed = Number(process.env.PROVING_KILL_SEED ?? Date.now() % 1_000_000_007);
  t.diagnostic(`kill schedule seed ${seed} (PROVING_KILL_SEED=${seed} replays it)`);
  const rng = Rng.seeded(seed, "kill-points");
  const file = path.join(dir, "kill.db");
  const common = ["--store", file, "--no-progress", "--json"];
  const runArgs = [
    "run",
    "--id",
    ID,
    "--agent",
    "./test/honest/support/slow-cautious.ts",
    ...DIFFICULTIES.flatMap((d) => ["--difficulty", String(d)]),
    "--trials",
    String(TRIALS),
    "--concurrency",
    "4",
    "--no-report",
    ...common,
  ];
  // --force: the run before was killed (awaited), so its experiment lease is a dead process's
  const resumeArgs = ["resume", ID, "--force", ...common];

  const seen = new Map<string, string>();
  const log: string[] = [];
  let killedMidRun = 0;
  let gracefulStops = 0;
  // Kill points: at a random number of recorded trials (plus a random 0–200 ms), or for one round at a
  // random time after spawn (most likely during start-up, before anything is recorded). The first three
  // rounds wait for progress, so at least two kills land mid-run however fast the machine is: a timed
  // kill early on could come after a fast resume had already finished the run.
  const plan: { signal: NodeJS.Signals; at: "progress" | "time" }[] = [
    { signal: "SIGKILL", at: "progress" },
    { signal: "SIGTERM", at: "progress" },
    { signal: "SIGKILL", at: "progress" },
    { signal: "SIGKILL", at: "time" },
    { signal: "SIGKILL", at: "progress" },
  ];
  for (const [round, { signal, at }] of plan.entries()) {
    const before = await snapshot(file);
    const child = startCli(before.exists ? resumeArgs : runArgs);
    const target = before.records.size + rng.int(3, 25);
    const delay = at === "time" ? rng.int(100, 2500) : rng.int(0, 200);
    let sent = false;
    let where = "";
    const kill = () => {
      sent = child.process.kill(signal);
    };
    let running = true;
    const exited = child.exited.finally(() => {
      running = false;
    });
    if (at === "time") {
      await Promise.race([exited, sleep(delay)]);
      where = `${delay} ms after spawn`;
    } else {
      while (running && recordedNow(file) < target) await Promise.race([exited, sleep(25)]);
      await Promise.race([exited, sleep(delay)]);
      where = `${target} recorded + ${delay} ms`;
    }
    if (running) kill();
    const exit = await exited;
    const snap = await snapshot(file);
    log.push(
      `round ${round}: ${before.exists ? "resume" : "run"}, ${sent ? `${signal} at ${where}` : "not killed"}, exit ${exit.code ?? exit.signal}, recorded ${before.records.size} → ${snap.records.size}/${PLANNED}, status ${snap.status ?? "-"}`,
    );
    assert.equal(snap.rows, snap.distinct, "a trial is recorded twice");
    assert.equal(snap.duplicateSteps, 0, "a step is recorded twice");
    if (snap.exists && snap.manifest > 0)
      assert.equal(snap.manifest, PLANNED, "the manifest is written whole");
    for (const [id, stamp] of seen) {
      assert.equal(snap.records.get(id), stamp, `recorded trial ${id} was lost or ran again`);
    }
    for (const [id, stamp] of snap.records) seen.set(id, stamp);
    if (!sent) {
      assert.equal(exit.code, 0, `${exit.stderr}`);
      break;
    }
    if (snap.records.size > before.records.size && snap.records.size < PLANNED) killedMidRun++;
    if (signal === "SIGTERM" && exit.code === 143) {
      gracefulStops++;
      assert.equal(snap.status, "interrupted", "a graceful stop marks the experiment interrupted");
    }
  }
  for (const line of log) t.diagnostic(line);

  const before = await snapshot(file);
  const final = before.exists ? await runCliToEnd(resumeArgs) : await runCliToEnd(runArgs);
  assert.equal(final.code, 0, final.stderr);
  const out = JSON.parse(final.stdout);
  assert.equal(out.planned, PLANNED);
  assert.equal(out.outcomes.missing, 0);
  if (before.exists) {
    assert.equal(out.resume.previously_recorded, before.records.size);
    assert.equal(out.resume.ran_now, PLANNED - before.records.size, "resume runs only what is missing");
    assert.equal(out.resume.status, "completed");
  }
  const done = await snapshot(file);
  assert.equal(done.status, "completed");
  assert.equal(done.records.size, PLANNED);
  assert.equal(done.rows, PLANNED);
  for (const [id, stamp] of seen) assert.equal(done.records.get(id), stamp, `trial ${id} ran twice`);
  assert.ok(killedMidRun >= 2, `fewer than two kills landed in the middle of the run:\n${log.join("\n")}`);
  t.diagnostic(`${killedMidRun} kill(s) mid-run, ${gracefulStops} graceful stop(s), ${PLANNED} trials`);

  // the same experiment, never interrupted (in process; the delay changes no action)
  const registry = defaultGym().registry;
  const reference = await runExperiment(
    parseExperiment({
      id: "uninterrupted",
      difficulties: DIFFICULTIES,
      trials: TRIALS,
      agents: ["cautious"],
    }),
    { registry, concurrency: 4 },
  );
  const key = (x: { family: string; difficulty: number; seed: number; repeat: number }) =>
    `${x.family}/d${x.difficulty}/s${x.seed}/r${x.repeat}`;
  const expected = new Map(reference.trials.map((x) => [key(x), `${x.outcome} ${x.trajectoryHash}`]));
  const store = await openStore(file);
  try {
    const got = new Map(
      (await store.listTrials(ID)).map((x) => [key(x), `${x.outcome} ${x.trajectoryHash}`]),
    );
    assert.deepEqual([...got.keys()].sort(), [...expected.keys()].sort(), "the same trial set");
    for (const [k, v] of expected) assert.equal(got.get(k), v, `${k} differs from the uninterrupted run`);
  } finally {
    await store.close();
  }
});
