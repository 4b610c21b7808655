/**
 * The queue's reliability promises against real Redis and Postgres: a poison trial ends recorded, a
 * drained worker loses nothing, a stale worker writes nothing, and neither a Redis wipe nor a
 * Postgres restart loses or doubles a trial.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runCli } from "../support/cli.ts";
import { postgresSkip, redisSkip } from "../support/services.ts";
import { attemptsOf, runQueued, useCluster, waitFor, waitForTrials, withStore } from "./cluster.ts";

const skip = postgresSkip() || redisSkip();
const q = useCluster(skip);
const { fresh, worker } = q;
type SpinParams = { ms?: number; poisonSeed?: number; oomSeed?: number };
const spinExperiment = (name: string, params: SpinParams) => q.spinExperiment(name, params);
const SPIN = ["--world", "spin@1", "--agent", "diligent", "--agent", "lazy", "--difficulty", "1"];

async function enqueue(
  store: string,
  queue: string,
  id: string,
  trials: number,
  params: SpinParams,
  extra: string[] = [],
) {
  const r = await runQueued(
    q.cluster,
    store,
    [
      spinExperiment(id, params),
      ...SPIN,
      "--trials",
      String(trials),
      "--id",
      id,
      "--detach",
      "--json",
      ...extra,
    ],
    queue,
  );
  assert.equal(r.code, 0, r.stderr);
}
const complete = waitForTrials;

describe("queue reliability", { skip }, () => {
  test("a poison trial (its process exits) is recorded as infra_error after its attempts; the rest completes", async () => {
    const { store, queue } = await fresh();
    await enqueue(store, queue, "poison", 2, { poisonSeed: 1 });
    worker(store, queue, ["--concurrency", "2"]);
    const trials = await complete(store, "poison", 4);
    const poisoned = trials.filter((t) => t.seed === 1);
    assert.equal(poisoned.length, 2);
    for (const t of poisoned) {
      assert.equal(t.outcome, "infra_error");
      assert.match(t.reason, /gave up after 3 attempt/);
    }
    assert.ok(trials.filter((t) => t.seed === 0).every((t) => t.outcome !== "infra_error"));
    const attempts = await attemptsOf(store, "poison");
    for (const t of poisoned)
      assert.equal(attempts.filter((a) => a.trialId === t.trialId).length, 3, "N attempts, no hot loop");
  });

  test("a poison trial that runs out of memory is recorded after --attempts N; its attempts are abandoned, the rest completes", async () => {
    const { store, queue } = await fresh();
    await enqueue(store, queue, "oom", 2, { oomSeed: 1 }, ["--attempts", "2"]);
    const w = worker(store, queue, ["--concurrency", "2", "--trial-memory-mb", "48", "--name", "oomw"]);
    const trials = await complete(store, "oom", 4);
    const poisoned = trials.filter((t) => t.seed === 1);
    assert.equal(poisoned.length, 2);
    for (const t of poisoned) {
      assert.equal(t.outcome, "infra_error");
      assert.match(t.reason, /gave up after 2 attempt/);
    }
    assert.ok(trials.filter((t) => t.seed === 0).every((t) => t.outcome !== "infra_error"));
    await waitFor("the poison attempts ended", async () =>
      (await attemptsOf(store, "oom")).every((a) => a.status !== "running"),
    );
    const attempts = await attemptsOf(store, "oom");
    for (const t of poisoned) {
      const mine = attempts.filter((a) => a.trialId === t.trialId);
      assert.equal(mine.length, 2, "--attempts 2: two attempts, no hot loop");
      assert.ok(
        mine.every((a) => a.status === "abandoned" && a.endedAt),
        "a process that died never ended its attempt: it is marked abandoned",
      );
    }
    assert.equal(w.child.exitCode, null, "the worker itself survived its trials' deaths");
    const status = await runCli(["status", "oom", "--store", store, "--json"]);
    const s = JSON.parse(status.stdout);
    assert.equal(s.abandoned, 4);
    assert.equal(s.inFlight, 0);
    assert.equal(s.workers.find((x: { worker: string }) => x.worker === "oomw")?.abandoned, 4);
  });

  test("a CPU-heavy trial busy past the job lock keeps its lock (sandboxed): one attempt per trial, no redelivery", async () => {
    const { store, queue } = await fresh();
    await enqueue(store, queue, "cpu", 2, { ms: 2500 }); // 1-2 units of 2.5 s busy CPU, lock 2 s
    worker(store, queue, ["--concurrency", "2"]);
    const trials = await complete(store, "cpu", 4);
    assert.ok(trials.every((t) => t.outcome !== "infra_error"));
    const attempts = await attemptsOf(store, "cpu");
    assert.equal(attempts.length, 4, "no trial was delivered twice");
    assert.ok(attempts.every((a) => a.status === "recorded"));
  });

  test("SIGTERM drains: in-flight trials finish and are recorded, the worker exits 0", async () => {
    const { store, queue } = await fresh();
    await enqueue(store, queue, "drain", 2, { ms: 800 });
    const w = worker(store, queue, ["--concurrency", "2"]);
    const running = await waitFor("a running attempt", async () =>
      (await attemptsOf(store, "drain")).find((a) => a.status === "running"),
    );
    w.child.kill("SIGTERM");
    const { code } = await w.exited;
    assert.equal(code, 0, w.log());
    const recorded = await withStore(store, (s) => s.recordedTrialIds("drain"));
    assert.ok(recorded.has(running.trialId), "the in-flight trial finished before exit");
    worker(store, queue);
    const trials = await complete(store, "drain", 4);
    assert.equal(new Set(trials.map((t) => t.trialId)).size, 4);
  });

  test("SIGSTOP a worker past its lock, redelivered, then SIGCONT: one record, the stale worker writes nothing", async () => {
    const { store, queue } = await fresh();
    await enqueue(store, queue, "stopped", 1, { ms: 1500 });
    const a = worker(store, queue, ["--name", "stale"]);
    const running = await waitFor("a running attempt", async () =>
      (await attemptsOf(store, "stopped")).find((x) => x.status === "running"),
    );
    a.signalGroup("SIGSTOP");
    worker(store, queue, ["--name", "fresh"]);
    await waitFor("the fresh worker records the stopped trial", async () =>
      (await attemptsOf(store, "stopped")).find(
        (x) => x.trialId === running.trialId && x.worker === "fresh" && x.status === "recorded",
      ),
    );
    a.signalGroup("SIGCONT");
    const trials = await complete(store, "stopped", 2);
    await new Promise((r) => setTimeout(r, 6000)); // the stale worker's trial finishes meanwhile
    const attempts = (await attemptsOf(store, "stopped")).filter((x) => x.trialId === running.trialId);
    assert.equal(attempts.filter((x) => x.status === "recorded").length, 1);
    const stale = attempts.find((x) => x.worker === "stale");
    assert.notEqual(stale?.status, "recorded", "the stale worker's record lost");
    assert.equal(trials.filter((t) => t.trialId === running.trialId).length, 1);
  });

  test("Redis killed and restarted, then restarted empty: the reconciler completes the run, recorded trials are not re-run", async () => {
    const { store, queue } = await fresh();
    await enqueue(store, queue, "wiped", 4, { ms: 300 });
    worker(store, queue, ["--concurrency", "2"]);
    await waitFor(
      "some trials recorded",
      async () => (await withStore(store, (s) => s.recordedTrialIds("wiped"))).size >= 2,
    );
    await q.cluster.redis.kill();
    await q.cluster.redis.start();
    await waitFor(
      "more trials recorded",
      async () => (await withStore(store, (s) => s.recordedTrialIds("wiped"))).size >= 4,
    );
    const before = await withStore(store, (s) => s.recordedTrialIds("wiped"));
    await q.cluster.redis.kill();
    await q.cluster.redis.start({ empty: true });
    const trials = await complete(store, "wiped", 8);
    assert.equal(new Set(trials.map((t) => t.trialId)).size, 8);
    const attempts = await attemptsOf(store, "wiped");
    for (const id of before) {
      assert.equal(
        attempts.filter((a) => a.trialId === id && a.status !== "failed").length,
        1,
        `${id} ran once`,
      );
    }
  });

  test("Postgres restarted mid-run: no partial records, the run completes", async () => {
    const { store, queue } = await fresh();
    await enqueue(store, queue, "pgrestart", 4, { ms: 300 });
    worker(store, queue, ["--concurrency", "2"]);
    await waitFor(
      "some trials recorded",
      async () => (await withStore(store, (s) => s.recordedTrialIds("pgrestart"))).size >= 2,
    );
    await q.cluster.pg.restart();
    const trials = await complete(store, "pgrestart", 8);
    assert.equal(new Set(trials.map((t) => t.trialId)).size, 8);
    await withStore(store, async (s) => {
      for (const t of trials) {
        const record = await s.getTrial(t.trialId);
        assert.equal(record?.steps.length, t.steps, `${t.trialId}: every step of the record is there`);
      }
    });
  });
});
