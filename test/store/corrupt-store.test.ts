/**
 * A SQLite store damaged in the middle of its file is refused when it opens (`store_corrupt`, naming
 * the file and what to do), so a run does not write on into it; a sound store opens as before.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { ProvingError } from "../../src/core/errors.ts";
import { openStore } from "../../src/store/index.ts";
import { makeRecord, makeSpec } from "./trial-factory.ts";

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-corrupt-"));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const PAGE = 4096;

/** A store of 200 trials (several hundred pages), closed (its WAL checkpointed into the file). */
async function writeStore(file: string): Promise<void> {
  const store = await openStore(file);
  try {
    await store.createExperiment({ id: "e", config: {}, createdAt: "2025-01-01T00:00:00Z" });
    for (let i = 0; i < 200; i++) await store.recordTrialOnce(makeRecord(makeSpec("e", i), { steps: 8 }));
  } finally {
    await store.close();
  }
}

test("a store with bytes overwritten mid-file is refused on open with store_corrupt; a sound one opens", async () => {
  const good = path.join(dir, "good.db");
  await writeStore(good);
  const bad = path.join(dir, "bad.db");
  fs.copyFileSync(good, bad);
  const size = fs.statSync(bad).size;
  assert.ok(size > 40 * PAGE, `the store spans many pages (${size} bytes)`);
  // overwrite whole pages in the middle of the file (not the header page) with junk
  const at = Math.floor(size / PAGE / 2) * PAGE;
  const fd = fs.openSync(bad, "r+");
  try {
    fs.writeSync(fd, Buffer.alloc(4 * PAGE, 0xa5), 0, 4 * PAGE, at);
  } finally {
    fs.closeSync(fd);
  }

  await assert.rejects(openStore(bad), (err: unknown) => {
    assert.ok(err instanceof ProvingError, `expected a ProvingError, got ${String(err)}`);
    assert.equal(err.code, "store_corrupt");
    assert.equal(err.fault, "infrastructure");
    assert.ok(err.message.includes(bad), err.message);
    assert.match(err.message, /damaged.*backup.*--store/s);
    return true;
  });
  // refused again (the open wrote nothing, and released the file's write lock)
  await assert.rejects(openStore(bad), /damaged/);

  const store = await openStore(good);
  try {
    assert.equal((await store.listTrials("e")).length, 200);
  } finally {
    await store.close();
  }
});

test("a file that is not a SQLite database is store_corrupt too", async () => {
  const junk = path.join(dir, "junk.db");
  fs.writeFileSync(junk, Buffer.alloc(8 * PAGE, 0x5a));
  await assert.rejects(openStore(junk), (err: unknown) => {
    assert.ok(err instanceof ProvingError);
    assert.equal(err.code, "store_corrupt", err.message);
    return true;
  });
});
