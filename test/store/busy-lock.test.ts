/**
 * Another process holding the SQLite store's write lock: the store retries with backoff past
 * SQLite's per-try wait (so a lock held longer than the old 5 s limit no longer aborts a run),
 * and past its own limit fails with a clear `store_busy`.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ProvingError } from "../../src/core/errors.ts";
import { openStore } from "../../src/store/index.ts";
import { makeRecord, makeSpec } from "./trial-factory.ts";

const HOLDER = fileURLToPath(new URL("./hold-lock.ts", import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-busy-"));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts the lock holder; resolves once it holds the lock. `lines` records what it said, in order. */
function holdLock(file: string, ms: number, lines: string[]) {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", HOLDER, file, String(ms)], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      for (const line of d.toString().split("\n").filter(Boolean)) {
        lines.push(line);
        if (line === "locked") resolve();
      }
    });
    child.once("exit", () => reject(new Error("the lock holder exited before locking")));
  });
  return { locked, exited };
}

test("a write waits out another process's lock held for 6 s (past SQLite's old 5 s limit) and lands", async () => {
  const file = path.join(dir, "wait.db");
  const store = await openStore(file);
  try {
    await store.createExperiment({ id: "busy", config: {}, createdAt: "2025-01-01T00:00:00Z" });
    const spec = makeSpec("busy", 0);
    await store.writeManifest("busy", [spec]);
    const lines: string[] = [];
    const holder = holdLock(file, 6000, lines);
    await holder.locked;
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 100);
    await store.saveTrials([makeRecord(spec, { steps: 3 })]);
    const writtenAt = Date.now();
    clearInterval(ticker);
    assert.equal(await holder.exited, 0);
    const released = Number(lines.find((l) => l.startsWith("released "))?.slice("released ".length));
    assert.ok(writtenAt >= released, "the write landed after the lock was let go");
    assert.ok(ticks > 10, `the event loop kept running while the store waited (${ticks} ticks)`);
    assert.equal((await store.getTrial(spec.id))?.steps.length, 3);
  } finally {
    await store.close();
  }
});

test("past its limit, a busy write fails with store_busy saying the lock was held", async () => {
  const file = path.join(dir, "limit.db");
  const store = await openStore(file, { busyTimeoutMs: 1000 });
  try {
    await store.createExperiment({ id: "busy", config: {}, createdAt: "2025-01-01T00:00:00Z" });
    const lines: string[] = [];
    const holder = holdLock(file, 4000, lines);
    await holder.locked;
    await assert.rejects(store.setExperimentStatus("busy", "running"), (err: unknown) => {
      assert.ok(err instanceof ProvingError);
      assert.equal(err.code, "store_busy");
      assert.equal(err.fault, "infrastructure");
      assert.match(err.message, /another process has held the database's write lock for \d+\.\d s/);
      return true;
    });
    assert.ok(!lines.some((l) => l.startsWith("released")), "it gave up while the lock was still held");
    await holder.exited;
    await store.setExperimentStatus("busy", "running");
    assert.equal((await store.getExperiment("busy"))?.status, "running", "a later write goes through");
  } finally {
    await store.close();
  }
});
