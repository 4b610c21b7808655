/**
 * Trials on BullMQ workers, results in Postgres — against a real Redis and a real Postgres: every
 * planned trial is recorded exactly once whatever happens to workers, the queue or the database.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import type { TrialSummary } from "../../src/core/trial-summary.ts";
import { runCli } from "../support/cli.ts";
import { postgresSkip, redisSkip } from "../support/services.ts";
import {
  attemptsOf,
  runQueued,
  spawnCoordinator,
  useCluster,
  waitFor,
  waitForTrials,
  withStore,
} from "./cluster.ts";

const skip = postgresSkip() || redisSkip();
const q = useCluster(skip);
const { fresh, worker } = q;

const SPIN = ["--world", "spin@1", "--agent", "diligent", "--agent", "lazy", "--difficulty", "1"];

/** An experiment file for spin@1 whose units of work each keep a CPU busy `ms` (and kill the trial process at `poisonSeed`). */
const spinExperiment = (name: string, params: { ms?: number; poisonSeed?: number }) =>
  q.spinExperiment(name, params);

const complete = waitForTrials;

/** The pids whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {}
  }
  return out;
}

async function firstRunning(store: string, id: string) {
  return waitFor(`a running attempt of ${id}`, async () =>
    (await attemptsOf(store, id)).find((a) => a.status === "running"),
  );
}

describe("trials on queue workers", { skip }, () => {
  test("3 workers give the same verdicts and trajectory hashes as the single-process runner", async () => {
    const { store, queue } = await fresh();
    const args = [
      "--world",
      "device-support@1",
      "--family",
      "lost-reply",
      "--family",
      "needs-approval",
      "--agent",
      "cautious",
      "--agent",
      "claims-success",
      "--trials",
      "3",
      "--id",
      "same",
    ];
    const local = await q.cluster.freshStore();
    const localRun = await runCli([
      "run",
      ...args,
      "--store",
      local,
      "--no-report",
      "--no-progress",
      "--json",
    ]);
    assert.equal(localRun.code, 0, localRun.stderr);
    for (let i = 0; i < 3; i++) worker(store, queue, ["--concurrency", "2"]);
    const queued = await runQueued(q.cluster, store, [...args, "--json"], queue);
    assert.equal(queued.code, 0, queued.stderr);
    const pick = (rows: TrialSummary[]) =>
      Object.fromEntries(
        rows.map((t) => [t.trialId, [t.outcome, t.passed, t.violations.join(","), t.trajectoryHash]]),
      );
    const a = await withStore(local, (s) => s.listTrials("same"));
    const b = await withStore(store, (s) => s.listTrials("same"));
    assert.ok(a.length > 0);
    assert.equal(b.length, a.length);
    assert.deepEqual(pick(b), pick(a));
    const attempts = await attemptsOf(store, "same");
    assert.equal(
      attempts.filter((x) => x.status === "recorded").length,
      b.length,
      "one winning attempt per trial",
    );
    assert.ok(new Set(attempts.map((x) => x.worker)).size >= 2, "the work was spread over workers");
    const status = await runCli(["status", "same", "--store", store, "--json"]);
    const s = JSON.parse(status.stdout);
    assert.equal(s.status, "completed");
    assert.equal(s.planned, b.length);
    assert.equal(s.recorded, b.length);
    assert.equal(s.inFlight, 0);
  });

  test("enqueue twice and restart the coordinator: no trial runs or is recorded twice", async () => {
    const { store, queue } = await fresh();
    const args = [...SPIN, "--trials", "3", "--id", "twice", "--detach", "--json"];
    for (let i = 0; i < 2; i++) {
      const r = await runQueued(q.cluster, store, args, queue);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).planned, 6);
    }
    worker(store, queue, ["--concurrency", "2"]);
    const follow = await runQueued(
      q.cluster,
      store,
      [...SPIN, "--trials", "3", "--id", "twice", "--json"],
      queue,
    );
    assert.equal(follow.code, 0, follow.stderr);
    assert.equal(JSON.parse(follow.stdout).planned, 6);
    await complete(store, "twice", 6);
    const attempts = await attemptsOf(store, "twice");
    assert.equal(attempts.length, 6, "each trial ran once");
    assert.ok(attempts.every((a) => a.status === "recorded"));
  });

  test("Ctrl-C on an attached run --queue stops following (with a hint), the run goes on; a second coordinator meanwhile is refused", async () => {
    const { store, queue } = await fresh();
    const args = [...SPIN, "--trials", "2", "--id", "follow"];
    const coordinator = spawnCoordinator(q.cluster, store, args, queue);
    try {
      const lease = await waitFor("the coordinator following", () =>
        withStore(store, (s) => s.getLease("follow")).catch(() => undefined),
      );
      const second = await runQueued(q.cluster, store, [...args, "--detach", "--json"], queue);
      assert.equal(second.code, 2, second.stderr);
      assert.match(second.stderr, /experiment_live/);
      assert.ok(second.stderr.includes(lease.holder), "the refusal names the live holder");
      coordinator.child.kill("SIGINT");
      const { code } = await coordinator.exited;
      assert.equal(code, 130, coordinator.log());
      const log = coordinator.log();
      assert.match(
        log,
        /stopped following follow \(0 of 4 planned trials recorded\); the run continues on the workers/,
      );
      assert.match(log, /proving status follow --store /);
      assert.match(log, /attach again: proving run .* --id follow --queue redis:/);
      assert.doesNotMatch(log, /proving resume/, "no hint to run the trials here instead");
      assert.equal(await withStore(store, (s) => s.getLease("follow")), undefined, "the lease was released");
    } finally {
      coordinator.child.kill("SIGKILL");
    }
    worker(store, queue, ["--concurrency", "2"]);
    const trials = await complete(store, "follow", 4);
    assert.equal(
      new Set(trials.map((t) => t.trialId)).size,
      4,
      "the enqueued trials ran after the coordinator left",
    );
  });

  test("SIGKILL a worker mid-trial: another worker re-runs it, recorded exactly once", async () => {
    const { store, queue } = await fresh();
    const file = spinExperiment("killed", { ms: 1500 });
    const r = await runQueued(
      q.cluster,
      store,
      [file, ...SPIN, "--trials", "2", "--id", "killed", "--detach", "--json"],
      queue,
    );
    assert.equal(r.code, 0, r.stderr);
    const a = worker(store, queue);
    const running = await firstRunning(store, "killed");
    a.signalGroup("SIGKILL");
    await a.exited;
    worker(store, queue);
    const trials = await complete(store, "killed", 4);
    assert.equal(new Set(trials.map((t) => t.trialId)).size, 4);
    const attempts = (await attemptsOf(store, "killed")).filter((x) => x.trialId === running.trialId);
    assert.ok(attempts.length >= 2, "the killed trial was delivered again");
    assert.equal(attempts.filter((x) => x.status === "recorded").length, 1);
    const killed = attempts.find((x) => x.attemptId === running.attemptId);
    assert.equal(killed?.status, "abandoned", "the killed worker's attempt does not stay running");
    assert.match(killed?.error ?? "", /delivered again/);
    const status = JSON.parse((await runCli(["status", "killed", "--store", store, "--json"])).stdout);
    assert.equal(status.inFlight, 0);
    assert.ok(status.abandoned >= 1);
    const text = (await runCli(["status", "killed", "--store", store])).stdout;
    assert.match(text, /abandoned attempts [1-9]/);
  });

  test("SIGKILL of the worker alone: its trial processes finish their trial and exit (issue 27)", async () => {
    const { store, queue } = await fresh();
    const file = spinExperiment("orphans", { ms: 1500 });
    const r = await runQueued(
      q.cluster,
      store,
      [file, ...SPIN, "--trials", "2", "--id", "orphans", "--detach", "--json"],
      queue,
    );
    assert.equal(r.code, 0, r.stderr);
    const a = worker(store, queue);
    await firstRunning(store, "orphans").catch((err) => {
      throw new Error(`${err.message}; the worker's log:\n${a.log()}`);
    });
    const children = childrenOf(a.pid);
    assert.ok(children.length >= 1, "the worker runs its trials in child processes");
    a.child.kill("SIGKILL"); // the worker only, not its process group
    await a.exited;
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await waitFor(
      "the orphaned trial processes to exit",
      async () => children.every((p) => !alive(p)) || undefined,
      30_000,
    );
    worker(store, queue);
    const trials = await complete(store, "orphans", 4);
    assert.equal(new Set(trials.map((t) => t.trialId)).size, 4, "every trial recorded once");
  });
});
