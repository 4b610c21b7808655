/**
 * Learners' policies in the store (the `policies` table), held to the same behaviour on every
 * dialect: saved by content hash (first provenance wins), read back whole by hash or a unique prefix,
 * listed without their parameters, coded errors for an unknown or ambiguous id.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { openStore, type StoredPolicy } from "../../src/store/index.ts";
import { rejectsWith, type StoreTarget } from "./contract.ts";

function policy(hash: string, createdAt: string, extra: Partial<StoredPolicy> = {}): StoredPolicy {
  return {
    hash,
    learner: "learner.q@1",
    version: 1,
    history: { episodes: 3, updates: 3, passes: 1, block: 100, passesPerBlock: [1] },
    source: "run",
    createdAt,
    policy: { learner: "learner.q@1", version: 1, params: { table: { s: { a: 0.5 } } }, hash },
    ...extra,
  };
}

export function policyContract(name: string, target: StoreTarget, skip: false | string = false): void {
  describe(`store contract: ${name}: learners' policies`, { skip }, () => {
    test("save by hash (idempotent, first provenance wins), get by hash or unique prefix, list, errors", async () => {
      const location = await target.fresh();
      const store = await openStore(location);
      try {
        const a = policy("abcd1234ef567890", "2026-01-02T00:00:00.000Z", { experimentId: "exp-a" });
        const b = policy("abcd0000ef567890", "2026-01-01T00:00:00.000Z", { source: "checkpoint@20" });
        assert.equal(await store.savePolicy(a), true);
        assert.equal(await store.savePolicy({ ...a, source: "import", experimentId: "other" }), false);
        assert.equal(await store.savePolicy(b), true);
        assert.deepEqual(await store.getPolicy(a.hash), a);
        assert.deepEqual(await store.getPolicy("abcd1"), a);
        assert.deepEqual(await store.getPolicy("ABCD0"), b);
        const { policy: _b, ...bSummary } = b;
        const { policy: _a, ...aSummary } = a;
        assert.deepEqual(await store.listPolicies(), [bSummary, aSummary]);
        await rejectsWith(store.getPolicy("abc"), "unknown_policy", "config");
        await rejectsWith(store.getPolicy("ffff"), "unknown_policy", "config");
        await rejectsWith(store.getPolicy("not-hex!"), "unknown_policy", "config");
        await rejectsWith(store.getPolicy("abcd9"), "unknown_policy", "config");
        await rejectsWith(store.getPolicy("abc%"), "unknown_policy", "config");
        await assert.rejects(store.getPolicy("abcd"), (err: Error) => {
          assert.match(err.message, /names 2 policies/);
          return (err as { code?: string }).code === "ambiguous_policy";
        });
        await rejectsWith(
          store.savePolicy(policy("XYZ", "2026-01-01T00:00:00.000Z")),
          "bad_policy",
          "config",
        );
        // a run's checkpoints but the kept ones are dropped; other runs' and other sources' stay
        const c = (hash: string, source: string, experimentId = "cur") =>
          policy(hash, "2026-01-03T00:00:00.000Z", { source, experimentId });
        for (const p of [
          c("c0000001", "checkpoint@10"),
          c("c0000002", "checkpoint@20"),
          c("c0000003", "run"),
        ])
          await store.savePolicy(p);
        await store.savePolicy(c("c0000004", "checkpoint@10", "other"));
        assert.equal(await store.dropPolicies("cur", "checkpoint@", ["c0000002"]), 1);
        assert.deepEqual(
          (await store.listPolicies()).filter((p) => p.hash.startsWith("c")).map((p) => p.hash),
          ["c0000002", "c0000003", "c0000004"],
        );
      } finally {
        await store.close();
      }
      // it is there after the store is opened again
      const again = await openStore(location);
      try {
        assert.equal((await again.listPolicies()).length, 5);
      } finally {
        await again.close();
      }
    });
  });
}
