/**
 * The experiment lease: a second process refuses to run or resume an experiment that is live; when
 * the holder is killed, `resume` takes it over at once (a dead process on this host; `--force` for any
 * other holder, or anyone once the lease expired), and no trial is run twice.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { holdExperimentLease } from "../../src/store/experiment-lease.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { isDeadLocalHolder } from "../../src/store/lease-holder.ts";
import { REPO_ROOT, runCli } from "../support/cli.ts";
import { rejectsWith } from "./contract.ts";

const BIN = fileURLToPath(new URL("../../bin/proving.mjs", import.meta.url));
const PLUGIN = fileURLToPath(new URL("../queue/fixtures/spin-plugin.mjs", import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-lease-"));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

async function withStore<T>(file: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await openStore(file);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("experiment lease (CLI, two processes)", () => {
  test("resume X while X runs is refused; right after X is killed -9, resume (no --force) finishes it, no trial run twice", async () => {
    const store = path.join(dir, "cli.db");
    const gym = path.join(dir, "gym.json");
    fs.writeFileSync(gym, JSON.stringify({ schemaVersion: 1, plugins: [PLUGIN], worlds: ["spin@1"] }));
    const exp = path.join(dir, "slow.json");
    fs.writeFileSync(exp, JSON.stringify({ params: { ms: 500 } }));
    const planned = 24;
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const first = spawn(
      process.execPath,
      [
        BIN,
        "--gym",
        gym,
        "run",
        exp,
        "--world",
        "spin@1",
        "--agent",
        "diligent",
        "--difficulty",
        "1",
        "--trials",
        String(planned),
        "--concurrency",
        "1",
        "--id",
        "live",
        "--store",
        store,
        "--no-report",
        "--no-progress",
      ],
      { cwd: REPO_ROOT, env: { ...env, NO_COLOR: "1" }, stdio: "ignore" },
    );
    children.push(first);
    const exited = new Promise((resolve) => first.once("exit", resolve));
    await waitFor("a recorded trial", () =>
      withStore(store, async (s) => (await s.recordedTrialIds("live")).size >= 2),
    );
    const refused = await runCli(["--gym", gym, "resume", "live", "--store", store, "--no-report", "--json"]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /experiment live is live: .* holds it.*--force/s);
    assert.match(refused.stderr, /experiment_live/);
    first.kill("SIGKILL");
    await exited;
    const recordedBefore = await withStore(store, (s) => s.recordedTrialIds("live"));
    assert.ok(recordedBefore.size < planned, "killed mid-run");
    // the holder is a dead process on this host: resume takes its lease over at once, no --force, no
    // waiting for the 30 s lease to expire
    const forced = await runCli(["--gym", gym, "resume", "live", "--store", store, "--no-report", "--json"]);
    assert.doesNotMatch(forced.stderr, /experiment_live/, "a dead local holder's lease is taken over");
    assert.equal(forced.code, 0, forced.stderr);
    const out = JSON.parse(forced.stdout);
    assert.equal(out.resume.previously_recorded, recordedBefore.size);
    assert.equal(out.resume.ran_now, planned - recordedBefore.size, "only the missing trials ran");
    await withStore(store, async (s) => {
      const trials = await s.listTrials("live");
      assert.equal(trials.length, planned);
      assert.equal(new Set(trials.map((t) => t.trialId)).size, planned);
      assert.equal(await s.getLease("live"), undefined, "the resume released the lease");
      assert.equal((await s.getExperiment("live"))?.status, "completed");
    });
  });
});

describe("holdExperimentLease", () => {
  const fresh = async () => {
    const store = await openStore(path.join(dir, `unit-${Math.random().toString(36).slice(2)}.db`));
    await store.createExperiment({ id: "x", config: {}, createdAt: "2025-01-01T00:00:00Z" });
    return store;
  };

  test("a live lease refuses a second holder; the heartbeat keeps it past its length; release frees it", async () => {
    const store = await fresh();
    try {
      const a = await holdExperimentLease(store, "x", { ttlMs: 300, holder: "a" });
      await new Promise((r) => setTimeout(r, 700)); // past one lease length: only the heartbeat keeps it
      await rejectsWith(
        holdExperimentLease(store, "x", { ttlMs: 300, holder: "b" }),
        "experiment_live",
        "config",
      );
      await a.release();
      const b = await holdExperimentLease(store, "x", { ttlMs: 300, holder: "b" });
      assert.equal(b.previous, undefined, "a released lease leaves no previous holder");
      await b.release();
    } finally {
      await store.close();
    }
  });

  test("a dead holder's lease expires; a forced takeover tells the live holder it lost the lease", async () => {
    const store = await fresh();
    try {
      // a holder that died: its lease was never renewed
      await store.acquireLease("x", { holder: "dead", ttlMs: 200, nowMs: Date.now() });
      await rejectsWith(holdExperimentLease(store, "x", { holder: "b" }), "experiment_live");
      await new Promise((r) => setTimeout(r, 300));
      let lostTo: string | undefined;
      const b = await holdExperimentLease(store, "x", {
        ttlMs: 300,
        holder: "b",
        onLost: (by) => {
          lostTo = by?.holder;
        },
      });
      assert.equal(b.previous?.holder, "dead", "taken without --force once expired");
      const c = await holdExperimentLease(store, "x", { force: true, holder: "c" });
      assert.equal(c.previous?.holder, "b", "--force takes a live lease");
      await waitFor("b's heartbeat to notice", async () => b.lost);
      assert.equal(lostTo, "c");
      await b.release();
      assert.equal(
        (await store.getLease("x"))?.holder,
        "c",
        "the loser's release leaves the new holder's lease",
      );
      await c.release();
      assert.equal(await store.getLease("x"), undefined);
    } finally {
      await store.close();
    }
  });

  test("a dead process on this host holds the lease: taken over at once; a live process's is refused", async () => {
    const store = await fresh();
    try {
      const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
      const deadPid = child.pid;
      await new Promise((r) => child.once("exit", r));
      assert.ok(deadPid);
      const dead = `${os.hostname()}:${deadPid}:deadbeef`;
      assert.ok(isDeadLocalHolder(dead));
      await store.acquireLease("x", { holder: dead, ttlMs: 60_000, nowMs: Date.now() });
      const b = await holdExperimentLease(store, "x", { holder: "b" });
      assert.equal(b.previous?.holder, dead, "taken from the dead holder without --force");
      await b.release();

      // a live process (this one) under another nonce, another host, an id of another shape: refused
      for (const live of [
        `${os.hostname()}:${process.pid}:othernon`,
        `not-${os.hostname()}:${deadPid}:deadbeef`,
        "opaque",
      ]) {
        assert.equal(isDeadLocalHolder(live), false, live);
        await store.acquireLease("x", { holder: live, ttlMs: 60_000, nowMs: Date.now(), force: true });
        await rejectsWith(holdExperimentLease(store, "x", { holder: "c" }), "experiment_live", "config");
      }
    } finally {
      await store.close();
    }
  });

  test("replaces takes the lease only from the holder it names", async () => {
    const store = await fresh();
    try {
      await store.acquireLease("x", { holder: "a", ttlMs: 60_000, nowMs: Date.now() });
      const other = await store.acquireLease("x", {
        holder: "c",
        ttlMs: 60_000,
        nowMs: Date.now(),
        replaces: "z",
      });
      assert.equal(other.acquired, false);
      const got = await store.acquireLease("x", {
        holder: "c",
        ttlMs: 60_000,
        nowMs: Date.now(),
        replaces: "a",
      });
      assert.equal(got.acquired, true);
    } finally {
      await store.close();
    }
  });
});
