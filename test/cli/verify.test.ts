/**
 * `proving verify` over a real run's store: a clean run verifies (exit 0); an outcome changed with
 * plain SQL, a deleted row and a forged row are named (exit 1), and `report` (terminal and HTML) and
 * `replay` warn; a store whose key file is gone is a coded error.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { parseJson, runCli } from "../support/cli.ts";

let dir: string;
let storeFile: string;
let experimentId: string;
let trialIds: string[];

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-verify-"));
  storeFile = path.join(dir, "proving.db");
  const run = await runCli([
    "run",
    "--agent",
    "cautious",
    "--family",
    "lost-reply",
    "--trials",
    "4",
    "--json",
    "--no-progress",
    "--no-report",
    "--store",
    storeFile,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const doc = parseJson<{ experiment: { id: string }; trials: { id: string }[] }>(run);
  experimentId = doc.experiment.id;
  trialIds = doc.trials.map((t) => t.id);
  assert.ok(trialIds.length >= 4, `${trialIds.length} trials`);
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test("verify: a clean run exits 0; tampering with SQL exits 1 naming each trial; report and replay warn", async () => {
  assert.ok(fs.existsSync(`${storeFile}.key`), "the store key sits beside the store");
  const clean = await runCli(["verify", "--store", storeFile, "--json"]);
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  const ok = parseJson<{ ok: boolean; valid: number; sealed: boolean }>(clean);
  assert.deepEqual([ok.ok, ok.valid, ok.sealed], [true, trialIds.length, true]);

  const [changed, removed] = trialIds;
  const db = new Database(storeFile);
  try {
    db.prepare("update trials set outcome = 'failed', passed = 0, score = 0 where trial_id = ?").run(changed);
    db.prepare("delete from steps where trial_id = ?").run(removed);
    db.prepare("delete from trials where trial_id = ?").run(removed);
    db.exec(`insert into trials select trial_id || '-forged', experiment_id, idx + 100, world, family, difficulty,
      agent, seed, repeat, variant_id, 'passed', reason, 1, 1, violations, steps, virtual_seconds, wall_ms, tokens_in,
      tokens_out, cost_usd, trajectory_hash, started_at, finished_at, record, null from trials where trial_id = '${trialIds[2]}'`);
  } finally {
    db.close();
  }

  const text = await runCli(["verify", experimentId, "--store", storeFile]);
  assert.equal(text.code, 1, text.stdout + text.stderr);
  assert.match(text.stdout, /^TAMPERED/);
  assert.ok(
    text.stdout.includes(`${changed}: its outcome, passed, score differ from its record`),
    text.stdout,
  );
  assert.match(text.stdout, new RegExp(`removed \\(1\\):\\n  ${removed}: in the seal`));
  assert.ok(text.stdout.includes(`${trialIds[2]}-forged: not planned in the manifest`), text.stdout);

  const json = parseJson<{ ok: boolean; changed: { trialId: string }[]; removed: { trialId: string }[] }>(
    await runCli(["verify", "--store", storeFile, "--json"]),
  );
  assert.equal(json.ok, false);
  assert.deepEqual(
    json.removed.map((r) => r.trialId),
    [removed],
  );

  const report = await runCli([
    "report",
    experimentId,
    "--store",
    storeFile,
    "--html",
    path.join(dir, "r.html"),
  ]);
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stderr, /warning: .*tampered with \(2 changed, 1 removed, 1 inserted\)/);
  assert.match(fs.readFileSync(path.join(dir, "r.html"), "utf8"), /data-banner="tampered"/);

  const replay = await runCli(["replay", changed!, "--store", storeFile]);
  assert.match(replay.stderr, /warning: .*tampered with \(1 changed/);
  const replayClean = await runCli(["replay", trialIds[3]!, "--store", storeFile]);
  assert.doesNotMatch(replayClean.stderr, /tampered/);

  fs.rmSync(`${storeFile}.key`);
  const noKey = await runCli(["verify", "--store", storeFile]);
  assert.equal(noKey.code, 2, noKey.stderr);
  assert.match(noKey.stderr, /key is missing.*proving\.db\.key.*\[store_key_missing\]/);
});
