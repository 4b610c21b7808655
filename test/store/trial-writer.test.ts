import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { openStore, type Store, TrialWriter } from "../../src/store/index.ts";
import { makeRecord, makeSpec } from "./trial-factory.ts";

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-writer-"));
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A stand-in for Store.saveTrials that records each batch and can be told to fail. */
class FakeStore {
  batches: string[][] = [];
  saved = new Map<string, TrialRecord>();
  failNext = 0;
  delayMs = 0;
  async saveTrials(records: readonly TrialRecord[]): Promise<void> {
    if (this.delayMs) await sleep(this.delayMs);
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error("disk on fire");
    }
    this.batches.push(records.map((r) => r.spec.id));
    for (const r of records) this.saved.set(r.spec.id, r);
  }
}

const EXP = "exp-w";
const rec = (i: number, steps = 1) => makeRecord(makeSpec(EXP, i), { steps });

describe("TrialWriter", () => {
  test("saves in batches of batchSize and flush() saves the rest", async () => {
    const store = new FakeStore();
    const writer = new TrialWriter(store, { batchSize: 4 });
    for (let i = 0; i < 10; i++) writer.add(rec(i));
    assert.equal(writer.pending, 10);
    await writer.flush();
    assert.equal(writer.pending, 0);
    assert.equal(store.saved.size, 10);
    assert.ok(store.batches.length <= 4, `batches: ${JSON.stringify(store.batches)}`);
    assert.deepEqual(store.batches.flat().sort(), [...store.saved.keys()].sort());
    await writer.flush(); // nothing to do
    assert.ok(store.batches.length <= 4);
  });

  test("a trial added twice is saved once, the later version winning", async () => {
    const store = new FakeStore();
    store.delayMs = 5;
    const writer = new TrialWriter(store, { batchSize: 2 });
    writer.add(rec(0, 1));
    writer.add(rec(1, 1)); // starts a background save of 0 and 1
    writer.add(rec(0, 3)); // newer version while the first is in flight
    await writer.flush();
    assert.equal(store.saved.get(rec(0).spec.id)!.steps.length, 3);
  });

  test("a failed save keeps its records; flush rejects, then a retry saves them", async () => {
    const store = new FakeStore();
    const writer = new TrialWriter(store, { batchSize: 100 });
    writer.add(rec(0, 1));
    writer.add(rec(1, 1));
    store.failNext = 1;
    await assert.rejects(writer.flush(), /disk on fire/);
    assert.equal(writer.pending, 2);
    assert.ok(writer.lastError instanceof Error);
    writer.add(rec(1, 5)); // newer than the failed one
    await writer.flush();
    assert.equal(writer.pending, 0);
    assert.equal(writer.lastError, undefined);
    assert.equal(store.saved.size, 2);
    assert.equal(store.saved.get(rec(1).spec.id)!.steps.length, 5);
  });

  test("a failed background save is retried by the next flush", async () => {
    const store = new FakeStore();
    store.failNext = 1;
    const writer = new TrialWriter(store, { batchSize: 2 });
    writer.add(rec(0));
    writer.add(rec(1)); // background save, fails
    await sleep(5);
    assert.equal(store.saved.size, 0);
    await writer.flush();
    assert.equal(store.saved.size, 2);
  });

  test("maxDelayMs saves without a flush call", async () => {
    const store = new FakeStore();
    const writer = new TrialWriter(store, { batchSize: 64, maxDelayMs: 10 });
    writer.add(rec(0));
    assert.equal(store.saved.size, 0);
    await sleep(40);
    assert.equal(store.saved.size, 1);
    await writer.close();
  });

  test("with a real store, flush() returns after the commit (another store sees it)", async () => {
    const file = path.join(dir, "writer.db");
    const a: Store = await openStore(file);
    const b: Store = await openStore(file);
    try {
      await a.createExperiment({ id: EXP, config: {}, createdAt: "2025-01-01T00:00:00Z" });
      const specs = Array.from({ length: 150 }, (_, i) => makeSpec(EXP, i));
      await a.writeManifest(EXP, specs);
      const writer = new TrialWriter(a, { batchSize: 64 });
      for (const spec of specs.slice(0, 100)) writer.add(makeRecord(spec, { steps: 3 }));
      await writer.flush();
      assert.equal((await b.recordedTrialIds(EXP)).size, 100);
      for (const spec of specs.slice(100)) writer.add(makeRecord(spec, { steps: 3 }));
      await writer.close();
      assert.deepEqual(await b.missingTrials(EXP), []);
      assert.deepStrictEqual(await b.getTrial(specs[149]!.id), makeRecord(specs[149]!, { steps: 3 }));
    } finally {
      await a.close();
      await b.close();
    }
  });
});
