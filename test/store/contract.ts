/**
 * The store contract: one suite every store passes (SQLite and Postgres). A target hands out fresh,
 * empty store locations (a file path or a `postgres://` URL); the suite opens them with `openStore`,
 * so `--store postgres://...` and `--store file.db` are held to the same behaviour.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import { openStore, STORE_SCHEMA_VERSION, type Store } from "../../src/store/index.ts";
import { makeRecord, makeSpec } from "./trial-factory.ts";

export interface StoreTarget {
  /** A location for a new, empty store. */
  fresh(): Promise<string>;
}

export async function rejectsWith(promise: Promise<unknown>, code: string, fault?: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ProvingError, `expected a ProvingError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (fault) assert.equal(err.fault, fault);
    return true;
  });
}

async function experiment(store: Store, id = "exp-1"): Promise<string> {
  await store.createExperiment({
    id,
    config: { agents: ["cautious"], trials: 3 },
    createdAt: "2025-01-01T00:00:00Z",
  });
  return id;
}

export function storeContract(name: string, target: StoreTarget, skip: false | string = false): void {
  const withStore = async <T>(fn: (store: Store, location: string) => Promise<T>): Promise<T> => {
    const location = await target.fresh();
    const store = await openStore(location);
    try {
      return await fn(store, location);
    } finally {
      await store.close();
    }
  };

  describe(`store contract: ${name}`, { skip }, () => {
    test("opens at the current schema version, reopens, and fails after close", async () => {
      const location = await target.fresh();
      const store = await openStore(location);
      assert.equal(store.schemaVersion, STORE_SCHEMA_VERSION);
      await experiment(store);
      await store.close();
      await store.close();
      await rejectsWith(store.listExperiments(), "store_closed", "internal");
      const again = await openStore(location);
      assert.deepEqual(
        (await again.listExperiments()).map((e) => e.id),
        ["exp-1"],
      );
      await again.close();
    });

    test("experiments: create, get, list, status, exists, bad ids", () =>
      withStore(async (store) => {
        const created = await store.createExperiment({
          id: "b",
          config: { x: 1 },
          createdAt: "2025-01-02T00:00:00Z",
        });
        assert.deepEqual(created, {
          id: "b",
          schemaVersion: 1,
          createdAt: "2025-01-02T00:00:00Z",
          config: { x: 1 },
          status: "planned",
        });
        await store.createExperiment({
          id: "a",
          config: {},
          createdAt: "2025-01-01T00:00:00Z",
          status: "running",
        });
        assert.deepEqual(
          (await store.listExperiments()).map((e) => e.id),
          ["a", "b"],
        );
        assert.deepEqual(await store.getExperiment("b"), created);
        assert.equal(await store.getExperiment("nope"), undefined);
        await rejectsWith(
          store.createExperiment({ id: "b", config: {}, createdAt: "t" }),
          "experiment_exists",
          "config",
        );
        assert.deepEqual(
          await store.createExperiment({ id: "b", config: { x: 2 }, createdAt: "t" }, { ifNotExists: true }),
          created,
        );
        await store.setExperimentStatus("b", "completed");
        assert.equal((await store.getExperiment("b"))?.status, "completed");
        await rejectsWith(
          store.createExperiment({ id: "a\nb", config: {}, createdAt: "t" }),
          "invalid_experiment_id",
        );
        const ghost = "no-such-experiment";
        await rejectsWith(store.getManifest(ghost), "unknown_experiment", "config");
        await rejectsWith(store.missingTrials(ghost), "unknown_experiment", "config");
        await rejectsWith(store.saveTrials([makeRecord(makeSpec(ghost, 0))]), "unknown_experiment", "config");
        await rejectsWith(
          store.recordTrialOnce(makeRecord(makeSpec(ghost, 0))),
          "unknown_experiment",
          "config",
        );
      }));

    test("a full record round-trips deep-equal, with and without a verdict", () =>
      withStore(async (store) => {
        const id = await experiment(store);
        const full = makeRecord(
          makeSpec(id, 0, { variantId: "v-abc", variant: { layers: ["rule.lose-reply@1"] } }),
          {
            outcome: "violated",
            steps: 6,
          },
        );
        const noVerdict = makeRecord(makeSpec(id, 1), { outcome: "infra_error", steps: 0, verdict: false });
        await store.saveTrials([full, noVerdict]);
        assert.deepStrictEqual(await store.getTrial(full.spec.id), full);
        const back = await store.getTrial(noVerdict.spec.id);
        assert.deepStrictEqual(back, noVerdict);
        assert.equal(await store.getTrial("nope"), undefined);
      }));

    test("saveTrials replaces wholly; a batch is one transaction", () =>
      withStore(async (store) => {
        const id = await experiment(store);
        const spec = makeSpec(id, 0);
        await store.saveTrials([makeRecord(spec, { outcome: "failed", steps: 7 })]);
        const second = makeRecord(spec, {
          outcome: "infra_error",
          steps: 2,
          verdict: false,
          reason: "provider 503",
        });
        await store.saveTrials([second]);
        assert.deepStrictEqual(await store.getTrial(spec.id), second);
        assert.equal((await store.listTrials(id)).length, 1);
        const good = makeRecord(makeSpec(id, 1));
        await rejectsWith(store.saveTrials([good, makeRecord(makeSpec("ghost", 2))]), "unknown_experiment");
        assert.equal(await store.getTrial(good.spec.id), undefined);
        const weird = { ...good, outcome: "exploded" } as unknown as TrialRecord;
        await rejectsWith(store.saveTrials([weird]), "invalid_trial_record", "internal");
      }));

    test("manifest order, idempotence, conflicts, missingTrials and recordedTrialIds", () =>
      withStore(async (store) => {
        const id = await experiment(store);
        const specs = Array.from({ length: 6 }, (_, i) => makeSpec(id, i));
        await store.writeManifest(id, [specs[3]!, specs[0]!, specs[5]!, specs[1]!, specs[4]!, specs[2]!]);
        assert.deepStrictEqual(await store.getManifest(id), specs);
        await store.writeManifest(id, specs);
        await rejectsWith(
          store.writeManifest(id, [{ ...specs[0]!, seed: 999 }]),
          "manifest_conflict",
          "config",
        );
        await rejectsWith(
          store.writeManifest(id, [makeSpec(id, 2, { id: "other-id" })]),
          "manifest_conflict",
        );
        assert.deepStrictEqual(await store.getManifest(id), specs, "failed writes change nothing");
        assert.deepStrictEqual(await store.missingTrials(id), specs);
        await store.saveTrials([
          makeRecord(specs[4]!),
          makeRecord(specs[1]!, { outcome: "missing", steps: 0 }),
        ]);
        assert.deepStrictEqual(await store.missingTrials(id), [specs[0], specs[2], specs[3], specs[5]]);
        assert.deepStrictEqual(await store.recordedTrialIds(id), new Set([specs[1]!.id, specs[4]!.id]));
      }));

    test("listTrials: summaries in manifest order with numbers as numbers, filters", () =>
      withStore(async (store) => {
        const id = await experiment(store);
        const specs = Array.from({ length: 5 }, (_, i) =>
          makeSpec(id, i, i === 4 ? { agent: { id: "bold", kind: "scripted", spec: "bold" } } : {}),
        );
        await store.writeManifest(id, specs);
        await store.saveTrials([
          makeRecord(specs[4]!, { outcome: "violated" }),
          makeRecord(specs[0]!),
          makeRecord(specs[2]!, { outcome: "failed" }),
        ]);
        const all = await store.listTrials(id);
        assert.deepEqual(
          all.map((s) => s.index),
          [0, 2, 4],
        );
        const v = all[2]!;
        assert.equal(v.seed, 1004);
        assert.equal(v.difficulty, 2);
        assert.equal(v.passed, false);
        assert.deepEqual(v.violations, ["double_refund", "pii_leak"]);
        assert.deepEqual(v.stats, {
          steps: 4,
          virtualSeconds: 6,
          wallMs: 42.5,
          tokensIn: 400,
          tokensOut: 80,
          costUsd: 0.0123,
        });
        assert.equal(all[0]!.passed, true);
        assert.deepEqual(
          (await store.listTrials(id, { outcome: "failed" })).map((s) => s.index),
          [2],
        );
        assert.deepEqual(
          (await store.listTrials(id, { family: "refund", agent: "cautious" })).map((s) => s.index),
          [0, 2],
        );
      }));

    test("exportJsonl: one line per record, in manifest order, paged", () =>
      withStore(async (store) => {
        const id = await experiment(store);
        const specs = Array.from({ length: 7 }, (_, i) => makeSpec(id, i));
        await store.writeManifest(id, specs);
        const records = specs
          .filter((s) => s.index !== 3)
          .map((s) => makeRecord(s, { outcome: s.index % 2 ? "failed" : "passed", steps: s.index }));
        await store.saveTrials([...records].reverse());
        for (const pageSize of [undefined, 1, 4]) {
          const lines: string[] = [];
          assert.equal(await store.exportJsonl(id, (l) => void lines.push(l), { pageSize }), 6);
          assert.deepStrictEqual(
            lines.map((l) => JSON.parse(l)),
            records,
          );
        }
      }));

    test("write-once: the first record wins, its steps and verdict only; racing writers insert one", () =>
      withStore(async (store, location) => {
        const id = await experiment(store);
        const spec = makeSpec(id, 0);
        await store.writeManifest(id, [spec]);
        const first = makeRecord(spec, { outcome: "passed", steps: 3 });
        const later = makeRecord(spec, { outcome: "infra_error", steps: 5, verdict: false });
        assert.equal(await store.recordTrialOnce(first), true);
        assert.equal(await store.recordTrialOnce(later), false);
        assert.deepStrictEqual(await store.getTrial(spec.id), first);

        const racing = makeSpec(id, 1);
        await store.writeManifest(id, [racing]);
        const contenders = Array.from({ length: 8 }, (_, i) =>
          makeRecord(racing, { outcome: i % 2 ? "failed" : "passed", steps: i + 1 }),
        );
        const a = await openStore(location); // a second store on the same database races the first
        try {
          const won = await Promise.all(contenders.map((r, i) => (i % 2 ? a : store).recordTrialOnce(r)));
          assert.equal(won.filter(Boolean).length, 1, "exactly one insert wins");
          const winner = contenders[won.indexOf(true)]!;
          assert.deepStrictEqual(
            await store.getTrial(racing.id),
            winner,
            "steps and verdict are the winner's",
          );
          assert.equal((await store.listTrials(id)).length, 2);
        } finally {
          await a.close();
        }
      }));

    test("an experiment's gym description: stored, replaced, read back", () =>
      withStore(async (store) => {
        const id = await experiment(store);
        assert.equal(await store.getExperimentGym(id), undefined);
        await store.setExperimentGym(id, { schemaVersion: 1, worlds: ["a@1"] });
        await store.setExperimentGym(id, { schemaVersion: 1, worlds: ["b@1"] });
        assert.deepEqual(await store.getExperimentGym(id), { schemaVersion: 1, worlds: ["b@1"] });
        await rejectsWith(store.setExperimentGym("ghost", {}), "unknown_experiment", "config");
      }));

    test("attempts: started, ended by the record (recorded/duplicate) or as failed; listed oldest first", () =>
      withStore(async (store) => {
        const id = await experiment(store);
        const spec = makeSpec(id, 0);
        await store.writeManifest(id, [spec]);
        const base = { trialId: spec.id, experimentId: id };
        await store.startAttempt({
          ...base,
          attemptId: "a1",
          attempt: 1,
          worker: "w1",
          startedAt: "2025-01-01T00:00:01Z",
        });
        await store.startAttempt({
          ...base,
          attemptId: "a1",
          attempt: 1,
          worker: "w1",
          startedAt: "2025-01-01T00:00:01Z",
        });
        await store.endAttempt("a1", {
          endedAt: "2025-01-01T00:00:02Z",
          status: "failed",
          error: "worker crashed",
        });
        await store.startAttempt({
          ...base,
          attemptId: "a2",
          attempt: 2,
          worker: "w2",
          startedAt: "2025-01-01T00:00:03Z",
        });
        await store.startAttempt({
          ...base,
          attemptId: "a3",
          attempt: 3,
          worker: "w3",
          startedAt: "2025-01-01T00:00:04Z",
        });
        assert.equal(
          await store.recordTrialOnce(makeRecord(spec), { attemptId: "a3", endedAt: "2025-01-01T00:00:05Z" }),
          true,
        );
        assert.equal(
          await store.recordTrialOnce(makeRecord(spec), { attemptId: "a2", endedAt: "2025-01-01T00:00:06Z" }),
          false,
        );
        const attempts = await store.listAttempts(id);
        assert.deepEqual(
          attempts.map((a) => [a.attemptId, a.worker, a.status, a.error ?? null]),
          [
            ["a1", "w1", "failed", "worker crashed"],
            ["a2", "w2", "duplicate", null],
            ["a3", "w3", "recorded", null],
          ],
        );
        assert.equal(attempts[0]!.endedAt, "2025-01-01T00:00:02Z");
        assert.equal((await store.listAttempts(id, "other")).length, 0);
      }));

    test("attempts: a redelivery abandons the trial's running attempt; a poison give-up abandons the rest", () =>
      withStore(async (store) => {
        const id = await experiment(store);
        const [spec, other] = [makeSpec(id, 0), makeSpec(id, 1)];
        await store.writeManifest(id, [spec, other]);
        const start = (attemptId: string, trialId: string, attempt: number, worker: string) =>
          store.startAttempt({
            attemptId,
            trialId,
            experimentId: id,
            attempt,
            worker,
            startedAt: `2025-01-01T00:00:0${attempt}Z`,
          });
        await start("k1", spec.id, 1, "killed");
        await start("o1", other.id, 1, "killed");
        await start("k2", spec.id, 2, "fresh");
        const byId = async () => new Map((await store.listAttempts(id)).map((a) => [a.attemptId, a]));
        let now = await byId();
        assert.equal(now.get("k1")!.status, "abandoned");
        assert.equal(
          now.get("k1")!.endedAt,
          "2025-01-01T00:00:02Z",
          "ended when the trial was delivered again",
        );
        assert.match(now.get("k1")!.error!, /delivered again \(attempt 2 on fresh\)/);
        assert.equal(now.get("k2")!.status, "running", "the new attempt runs");
        assert.equal(now.get("o1")!.status, "running", "another trial's attempt is untouched");
        assert.equal(
          await store.abandonAttempts(other.id, { endedAt: "2025-01-01T00:00:09Z", error: "gave up" }),
          1,
        );
        assert.equal(
          await store.abandonAttempts(other.id, { endedAt: "2025-01-01T00:00:09Z", error: "again" }),
          0,
        );
        now = await byId();
        assert.equal(now.get("o1")!.status, "abandoned");
        assert.equal(now.get("o1")!.error, "gave up");
        // the stale worker comes back and finishes after all: its end is what happened
        await store.recordTrialOnce(makeRecord(spec), { attemptId: "k2", endedAt: "2025-01-01T00:00:05Z" });
        await store.recordTrialOnce(makeRecord(spec), { attemptId: "k1", endedAt: "2025-01-01T00:00:06Z" });
        now = await byId();
        assert.equal(now.get("k2")!.status, "recorded");
        assert.equal(now.get("k1")!.status, "duplicate");
      }));

    test("experiment lease: refused while live, taken when expired or forced, renewed and released by its holder", () =>
      withStore(async (store) => {
        const id = await experiment(store);
        await rejectsWith(
          store.acquireLease("nope", { holder: "a", ttlMs: 1000, nowMs: 0 }),
          "unknown_experiment",
        );
        assert.equal(await store.getLease(id), undefined);
        assert.deepEqual(await store.acquireLease(id, { holder: "a", ttlMs: 1000, nowMs: 10_000 }), {
          acquired: true,
        });
        const held = await store.getLease(id);
        assert.equal(held?.holder, "a");
        assert.equal(held?.expiresAt, 11_000);
        const refused = await store.acquireLease(id, { holder: "b", ttlMs: 1000, nowMs: 10_500 });
        assert.equal(refused.acquired, false);
        assert.equal(!refused.acquired && refused.holder.holder, "a");
        assert.equal(
          (await store.acquireLease(id, { holder: "a", ttlMs: 1000, nowMs: 10_600 })).acquired,
          true,
          "re-entrant",
        );
        assert.equal(await store.renewLease(id, "a", 20_000), true);
        assert.equal(
          (await store.acquireLease(id, { holder: "b", ttlMs: 1000, nowMs: 19_999 })).acquired,
          false,
          "renewed",
        );
        const expired = await store.acquireLease(id, { holder: "b", ttlMs: 1000, nowMs: 20_001 });
        assert.equal(expired.acquired, true, "an expired lease is free");
        assert.equal(expired.acquired && expired.previous?.holder, "a");
        assert.equal(
          await store.renewLease(id, "a", 99_000),
          false,
          "the old holder learns it lost the lease",
        );
        await store.releaseLease(id, "a");
        assert.equal(
          (await store.getLease(id))?.holder,
          "b",
          "releasing a lost lease leaves the new holder's",
        );
        const forced = await store.acquireLease(id, { holder: "c", ttlMs: 1000, nowMs: 20_002, force: true });
        assert.equal(forced.acquired, true, "force takes a live lease");
        await store.releaseLease(id, "c");
        assert.equal(await store.getLease(id), undefined);
      }));
  });
}
