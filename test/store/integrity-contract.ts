/**
 * Tamper-evident records on every store (SQLite and Postgres): with a store key given explicitly, rows
 * are signed and a completed experiment sealed; plain SQL that changes, removes or inserts a trial row
 * is found by `verifyRecords`; a signed store opened without its key (or with another) is refused.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { connectPostgres, isPostgresUrl, openStore } from "../../src/store/index.ts";
import { rejectsWith, type StoreTarget } from "./contract.ts";
import { makeRecord, makeSpec } from "./trial-factory.ts";

/** Runs SQL statements on the store's database, behind the store's back. */
async function tamper(location: string, statements: string[]): Promise<void> {
  if (isPostgresUrl(location)) {
    const db = await connectPostgres(location);
    try {
      for (const s of statements) await sql.raw(s).execute(db);
    } finally {
      await db.destroy();
    }
    return;
  }
  const db = new Database(location);
  try {
    for (const s of statements) db.exec(s);
  } finally {
    db.close();
  }
}

export function integrityContract(name: string, target: StoreTarget, skip: false | string = false): void {
  describe(`record integrity: ${name}`, { skip }, () => {
    test("signed rows and a seal verify; changed, removed and inserted rows are named; the key is required", async () => {
      const location = await target.fresh();
      const recordKey = randomBytes(32);
      const store = await openStore(location, { recordKey, keySource: "the test" });
      try {
        await store.createExperiment({ id: "e", config: {}, createdAt: "2025-01-01T00:00:00Z" });
        const specs = [0, 1, 2, 3].map((i) => makeSpec("e", i));
        await store.writeManifest("e", specs);
        await store.saveTrials(specs.slice(0, 2).map((s) => makeRecord(s, { outcome: "failed" })));
        for (const s of specs.slice(2)) await store.recordTrialOnce(makeRecord(s, { outcome: "failed" }));
        await store.setExperimentStatus("e", "completed");
        const clean = await store.verifyRecords("e");
        assert.deepEqual([clean.ok, clean.keyed, clean.sealed, clean.valid], [true, true, true, 4]);
      } finally {
        await store.close();
      }
      await tamper(location, [
        "update trials set outcome = 'passed', passed = 1 where trial_id = 'e/t0000'",
        "update steps set step = replace(step, 'reset_device', 'lookup_customer') where trial_id = 'e/t0001'",
        "delete from trials where trial_id = 'e/t0002'",
        `insert into trials select 'e/t0009', experiment_id, 9, world, family, difficulty, agent, seed, repeat,
          variant_id, outcome, reason, passed, score, violations, steps, virtual_seconds, wall_ms, tokens_in,
          tokens_out, cost_usd, trajectory_hash, started_at, finished_at, record, mac from trials where trial_id = 'e/t0003'`,
      ]);
      const again = await openStore(location, { recordKey });
      try {
        const v = await again.verifyRecords("e");
        assert.equal(v.ok, false);
        assert.deepEqual([...new Set(v.changed.map((c) => c.trialId))].sort(), [
          "e/t0000",
          "e/t0001",
          "e/t0009",
        ]);
        assert.deepEqual(
          v.removed.map((r) => r.trialId),
          ["e/t0002"],
        );
        assert.deepEqual(
          v.inserted.map((r) => r.trialId),
          ["e/t0009"],
        );
      } finally {
        await again.close();
      }
      await rejectsWith(openStore(location), "store_key_missing", "config");
      await rejectsWith(openStore(location, { recordKey: randomBytes(32) }), "store_key_mismatch", "config");
    });
  });
}
