import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { ProvingError } from "../../src/core/errors.ts";
import { openStore } from "../../src/store/open-store.ts";
import { makeRecord, makeSpec } from "./trial-factory.ts";

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-integrity-"));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A completed experiment of `n` trials (half through saveTrials, half write-once), sealed. */
async function writeStore(file: string, n = 6): Promise<void> {
  const store = await openStore(file);
  try {
    await store.createExperiment({ id: "e", config: {}, createdAt: "2025-01-01T00:00:00Z" });
    const specs = Array.from({ length: n }, (_, i) => makeSpec("e", i));
    await store.writeManifest("e", specs);
    await store.saveTrials(specs.slice(0, n / 2).map((s) => makeRecord(s, { outcome: "failed" })));
    for (const s of specs.slice(n / 2)) await store.recordTrialOnce(makeRecord(s, { outcome: "failed" }));
    await store.setExperimentStatus("e", "completed");
  } finally {
    await store.close();
  }
}

async function verify(file: string) {
  const store = await openStore(file);
  try {
    return await store.verifyRecords("e");
  } finally {
    await store.close();
  }
}

function sqlite(file: string, fn: (db: Database.Database) => void): void {
  const db = new Database(file);
  try {
    fn(db);
  } finally {
    db.close();
  }
}

test("a clean store verifies: every row signed and sealed; the key file sits beside it, mode 0600", async () => {
  const file = path.join(dir, "clean.db");
  await writeStore(file);
  const keyFile = `${file}.key`;
  assert.ok(fs.existsSync(keyFile));
  assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600);
  const v = await verify(file);
  assert.equal(v.ok, true, JSON.stringify(v));
  assert.equal(v.keyed, true);
  assert.equal(v.sealed, true);
  assert.equal(v.checked, 6);
  assert.equal(v.valid, 6);
  assert.deepEqual([v.changed, v.removed, v.inserted, v.unsigned], [[], [], [], []]);
  // the key is not in the store file
  const key = fs.readFileSync(keyFile, "utf8").trim();
  assert.ok(!fs.readFileSync(file).includes(Buffer.from(key)));
});

test("an outcome changed with plain SQL is found, naming the trial (summary column and record alike)", async () => {
  const file = path.join(dir, "changed.db");
  await writeStore(file);
  sqlite(file, (db) => {
    db.prepare("update trials set outcome = 'passed', passed = 1 where trial_id = ?").run("e/t0001");
    const row = db.prepare("select record from trials where trial_id = ?").get("e/t0004") as {
      record: string;
    };
    const record = JSON.parse(row.record);
    record.outcome = "passed";
    db.prepare("update trials set record = ?, outcome = 'passed' where trial_id = ?").run(
      JSON.stringify(record),
      "e/t0004",
    );
    db.prepare(
      "update verdicts set verdict = replace(verdict, '\"passed\":false', '\"passed\":true') where trial_id = ?",
    ).run("e/t0002");
  });
  const v = await verify(file);
  assert.equal(v.ok, false);
  const changed = [...new Set(v.changed.map((c) => c.trialId))].sort();
  assert.deepEqual(changed, ["e/t0001", "e/t0002", "e/t0004"]);
  assert.match(v.changed.find((c) => c.trialId === "e/t0001")!.problem, /outcome/);
  assert.equal(v.valid, 3);
});

test("a deleted row is removed (named from the seal); a deleted seal of a completed experiment is found", async () => {
  const file = path.join(dir, "removed.db");
  await writeStore(file);
  sqlite(file, (db) => {
    db.prepare("delete from steps where trial_id = ?").run("e/t0003");
    db.prepare("delete from verdicts where trial_id = ?").run("e/t0003");
    db.prepare("delete from trials where trial_id = ?").run("e/t0003");
    db.prepare("delete from manifest where trial_id = ?").run("e/t0003");
  });
  const v = await verify(file);
  assert.equal(v.ok, false);
  assert.deepEqual(
    v.removed.map((r) => r.trialId),
    ["e/t0003"],
  );
  sqlite(file, (db) => db.prepare("delete from experiment_seals").run());
  const w = await verify(file);
  assert.equal(w.ok, false);
  assert.match(w.experiment.join(" "), /seal is missing/);
});

test("a forged row inserted with SQL (copied from another, or unsigned) is inserted/changed/unsigned", async () => {
  const file = path.join(dir, "inserted.db");
  await writeStore(file);
  sqlite(file, (db) => {
    // a row copied under a new trial id, MAC and all
    db.exec(`insert into trials select 'e/t0099', experiment_id, 99, world, family, difficulty, agent, seed, repeat,
      variant_id, 'passed', reason, 1, 1, violations, steps, virtual_seconds, wall_ms, tokens_in, tokens_out, cost_usd,
      trajectory_hash, started_at, finished_at, record, mac from trials where trial_id = 'e/t0000'`);
    // a planned trial given an unsigned row
    db.prepare(
      "insert into manifest select 'e/t0050', experiment_id, 50, spec, world, family, difficulty, agent, seed, repeat, variant_id from manifest where trial_id = 'e/t0000'",
    ).run();
    db.exec(`insert into trials select 'e/t0050', experiment_id, 50, world, family, difficulty, agent, seed, repeat,
      variant_id, 'passed', reason, 1, 1, violations, steps, virtual_seconds, wall_ms, tokens_in, tokens_out, cost_usd,
      trajectory_hash, started_at, finished_at, record, null from trials where trial_id = 'e/t0000'`);
  });
  const v = await verify(file);
  assert.equal(v.ok, false);
  assert.deepEqual(v.unsigned, ["e/t0050"]);
  const inserted = v.inserted.map((r) => r.trialId).sort();
  assert.deepEqual(inserted, ["e/t0050", "e/t0099"]);
  assert.ok(
    v.changed.some((c) => c.trialId === "e/t0099"),
    JSON.stringify(v.changed),
  );
});

test("a signed store whose key file is gone is refused with store_key_missing; another key is store_key_mismatch", async () => {
  const file = path.join(dir, "nokey.db");
  await writeStore(file);
  const keyFile = `${file}.key`;
  const key = fs.readFileSync(keyFile);
  fs.rmSync(keyFile);
  await assert.rejects(openStore(file), (err: unknown) => {
    assert.ok(err instanceof ProvingError);
    assert.equal(err.code, "store_key_missing");
    assert.equal(err.fault, "config");
    assert.ok(err.message.includes(keyFile), err.message);
    return true;
  });
  assert.ok(!fs.existsSync(keyFile), "no new key is made for a signed store");
  fs.writeFileSync(keyFile, `${"ab".repeat(32)}\n`, { mode: 0o600 });
  await assert.rejects(openStore(file), { code: "store_key_mismatch" });
  fs.writeFileSync(keyFile, key);
  assert.equal((await verify(file)).ok, true);
});

test("an old store without MACs verifies as unsigned (not tampered); new records are signed", async () => {
  const file = path.join(dir, "old.db");
  await writeStore(file, 4);
  sqlite(file, (db) => {
    db.exec("update trials set mac = null; delete from experiment_seals; delete from store_keys");
  });
  fs.rmSync(`${file}.key`);
  const v = await verify(file);
  assert.equal(v.ok, true, JSON.stringify(v));
  assert.deepEqual(v.unsigned, ["e/t0000", "e/t0001", "e/t0002", "e/t0003"]);
  assert.ok(fs.existsSync(`${file}.key`), "a store never signed takes a new key");
});

test("stores opening a new file at once agree on one key (it is read inside the open's transaction)", async () => {
  const file = path.join(dir, "race.db");
  const stores = await Promise.all([openStore(file), openStore(file), openStore(file)]);
  try {
    await stores[0]!.createExperiment({ id: "e", config: {}, createdAt: "2025-01-01T00:00:00Z" });
    await stores[0]!.writeManifest("e", [makeSpec("e", 0), makeSpec("e", 1)]);
    await stores[1]!.saveTrials([makeRecord(makeSpec("e", 0))]);
    await stores[2]!.recordTrialOnce(makeRecord(makeSpec("e", 1)));
    const v = await stores[0]!.verifyRecords("e");
    assert.deepEqual([v.ok, v.valid], [true, 2]);
  } finally {
    for (const s of stores) await s.close();
  }
});
