/**
 * The curriculum's store on both dialects: the same behaviours, written once, run on a SQLite file
 * and on a real Postgres (test/support/services.ts; under CI=true a missing Postgres fails).
 * Runs, episodes, snapshots, evaluations, the task pool, reviews, variants, a failed write rolling
 * back, and a run interrupted mid-way resuming with the same continuation as an uninterrupted one.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  type CurriculumStore,
  curriculumConfig,
  MemoryHistory,
  openCurriculumStore,
  readCurriculum,
  requireRun,
  runCurriculum,
} from "../../src/curriculum/index.ts";
import type { CurriculumEpisodesTable, CurriculumTasksTable } from "../../src/curriculum/store-tables.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { openStore } from "../../src/store/index.ts";
import { type PostgresServer, postgresSkip, startPostgres } from "../support/services.ts";
import { SPLIT } from "./fixtures/split.ts";
import { weakResolved } from "./fixtures/weak-agent.ts";
import { episodeView } from "./support.ts";

const episode = (run: string, idx: number, seed: number, outcome = "passed"): CurriculumEpisodesTable => ({
  run_id: run,
  idx,
  task_key: `device-support@1/denied/${idx % 3}`,
  world: "device-support@1",
  variant_id: idx % 2 ? null : "v-1",
  family: "denied",
  difficulty: 1.5,
  split: "dynamic",
  seed,
  trial_id: `t-${idx}`,
  outcome,
  passed: outcome === "passed" ? 1 : 0,
  process: JSON.stringify({ steps: idx }),
  generation: JSON.stringify({ seed }),
});

const task = (run: string, itemId: string, status: string, createdAt: string): CurriculumTasksTable => ({
  run_id: run,
  item_id: itemId,
  task_key: "device-support@1/denied/1",
  seed: 2 ** 40 + itemId.length,
  content_hash: status === "failed" ? null : `h-${itemId}`,
  status,
  reason: status === "accepted" ? "" : "gate",
  task: status === "failed" ? null : JSON.stringify({ instruction: itemId }),
  known_good: null,
  created_at: createdAt,
});

/** Each call: a fresh, empty store location (a SQLite path or a Postgres URL). */
type Fresh = () => Promise<string>;

function curriculumStoreSuite(dialect: string, fresh: Fresh, skip: false | string): void {
  describe(`CurriculumStore on ${dialect}`, { skip }, () => {
    const withStore = async (fn: (s: CurriculumStore, location: string) => Promise<void>) => {
      const location = await fresh();
      const s = await openCurriculumStore(location);
      try {
        await fn(s, location);
      } finally {
        await s.close();
      }
    };

    test("runs: create (idempotent), read, list in creation order, status", () =>
      withStore(async (s, location) => {
        const a = await s.createRun("run-b", { seed: 1, nested: { k: [1, 2] } }, "2026-01-02T00:00:00.000Z");
        assert.deepEqual(a.config, { seed: 1, nested: { k: [1, 2] } });
        const again = await s.createRun("run-b", { seed: 99 }, "2026-01-05T00:00:00.000Z");
        assert.deepEqual(again.config, { seed: 1, nested: { k: [1, 2] } }, "the first create wins");
        await s.createRun("run-a", { seed: 2 }, "2026-01-01T00:00:00.000Z");
        assert.deepEqual(
          (await s.listRuns()).map((r) => r.id),
          ["run-a", "run-b"],
        );
        await s.setStatus("run-b", "completed");
        assert.equal((await s.getRun("run-b"))?.status, "completed");
        assert.equal(await s.getRun("nope"), undefined);
        await assert.rejects(requireRun(s, "nope"), /unknown_curriculum_run|no curriculum run nope/);
        // the run survives closing and reopening (the migration runs again harmlessly)
        const reopened = await openCurriculumStore(location);
        try {
          assert.equal((await reopened.getRun("run-b"))?.status, "completed");
        } finally {
          await reopened.close();
        }
      }));

    test("episodes and snapshots: numeric order, replaced by index, latest snapshot at or before N", () =>
      withStore(async (s) => {
        await s.createRun("r", {}, "2026-01-01T00:00:00.000Z");
        for (const idx of [1, 2, 10, 3])
          await s.saveEpisode(episode("r", idx, 2 ** 40 + idx), idx % 2 ? undefined : { after: idx });
        await s.saveEpisode(episode("r", 3, 7, "failed"), { after: 3, replaced: true });
        await s.saveEpisode(episode("other", 1, 1));
        const rows = await s.episodes("r");
        assert.deepEqual(
          rows.map((r) => r.idx),
          [1, 2, 3, 10],
        );
        assert.deepEqual(rows[2], episode("r", 3, 7, "failed"), "the replaced episode, typed as written");
        assert.equal(rows[3]!.seed, 2 ** 40 + 10, "a bigint seed reads back as the number written");
        assert.equal(typeof rows[0]!.difficulty, "number");
        assert.equal(await s.latestSnapshot("r", 1), undefined);
        assert.deepEqual(await s.latestSnapshot("r", 2), { afterEpisode: 2, snapshot: { after: 2 } });
        assert.deepEqual(await s.latestSnapshot("r", 9), {
          afterEpisode: 3,
          snapshot: { after: 3, replaced: true },
        });
        assert.deepEqual(await s.latestSnapshot("r", 1e9), { afterEpisode: 10, snapshot: { after: 10 } });
      }));

    test("evaluations: one row per (episode, split), ordered by episode then split", () =>
      withStore(async (s) => {
        const ev = (after: number, split: string, passed: number) => ({
          run_id: "r",
          after_episode: after,
          split,
          planned: 3,
          passed,
          manifest_hash: "m",
          tasks: JSON.stringify([{ after, split }]),
        });
        await s.saveEvaluation(ev(20, "regression", 1));
        await s.saveEvaluation(ev(10, "regression", 1));
        await s.saveEvaluation(ev(10, "heldout", 0));
        await s.saveEvaluation(ev(10, "regression", 3));
        assert.deepEqual(await s.evaluations("r"), [
          ev(10, "heldout", 0),
          ev(10, "regression", 3),
          ev(20, "regression", 1),
        ]);
      }));

    test("the task pool: replaced by item, filtered by status, in code-unit order whatever the collation", () =>
      withStore(async (s) => {
        const at = "2026-01-01T00:00:00.000Z";
        // ids that a locale collation (which ignores case and punctuation) would order differently
        const ids = ["a_c", "aB", "Ab", "a-b", "ab"];
        await s.saveTasks(ids.map((id, i) => task("pool", id, i % 2 ? "rejected" : "accepted", at)));
        await s.saveTasks([
          task("pool", "zz", "failed", "2025-12-31T00:00:00.000Z"),
          task("pool", "ab", "failed", at),
        ]);
        await s.saveTasks([]);
        const all = await s.tasks("pool");
        assert.deepEqual(
          all.map((r) => r.item_id),
          ["zz", "Ab", "a-b", "aB", "a_c", "ab"],
        );
        assert.deepEqual(all[5], task("pool", "ab", "failed", at));
        assert.deepEqual(
          (await s.tasks("pool", "accepted")).map((r) => r.item_id),
          ["Ab", "a_c"],
        );
        assert.deepEqual(await s.tasks("elsewhere"), []);
      }));

    test("a failed write rolls back the whole batch", () =>
      withStore(async (s) => {
        const at = "2026-01-01T00:00:00.000Z";
        await s.saveTasks([task("p", "keep", "accepted", at)]);
        const bad = {
          ...task("p", "bad", "accepted", at),
          task_key: null,
        } as unknown as CurriculumTasksTable;
        await assert.rejects(s.saveTasks([task("p", "first", "accepted", at), bad]));
        assert.deepEqual(
          (await s.tasks("p")).map((r) => r.item_id),
          ["keep"],
        );
        // the store still writes after the failure (the connection was not left in a transaction)
        await s.saveTasks([task("p", "after", "accepted", at)]);
        assert.equal((await s.tasks("p")).length, 2);
      }));

    test("reviews: the last decision per item, ordered by item", () =>
      withStore(async (s) => {
        const review = (item: string, decision: string, note = "") => ({
          run_id: "pool",
          item_id: item,
          decision,
          note,
          reviewed_at: "2026-01-01T00:00:00.000Z",
        });
        await s.saveReview(review("b-1", "approve"));
        await s.saveReview(review("B0", "reject", "bad wording"));
        await s.saveReview(review("b-1", "reject", "changed my mind"));
        assert.deepEqual(await s.reviews("pool"), [
          review("B0", "reject", "bad wording"),
          review("b-1", "reject", "changed my mind"),
        ]);
        assert.deepEqual(await s.reviews("other"), []);
      }));

    test("variants: added with provenance, replaced by id, listed in order, filtered by status", () =>
      withStore(async (s) => {
        const variant = {
          world: "device-support@1",
          layers: [{ id: "rule.disable-tool@1", params: { tool: "x" } }],
        };
        await s.addVariant({
          variant,
          variantId: "v-b",
          provenance: { by: "rigger" },
          createdAt: "2026-01-02T00:00:00.000Z",
        });
        await s.addVariant({
          variant,
          variantId: "V-a",
          provenance: null,
          status: "rejected",
          createdAt: "2026-01-02T00:00:00.000Z",
        });
        await s.addVariant({
          variant: { ...variant, layers: [] },
          variantId: "v-b",
          provenance: { by: "again" },
          createdAt: "2026-01-03T00:00:00.000Z",
        });
        const all = await s.listVariants();
        assert.deepEqual(
          all.map((v) => [v.variantId, v.status, v.createdAt]),
          [
            ["V-a", "rejected", "2026-01-02T00:00:00.000Z"],
            ["v-b", "accepted", "2026-01-03T00:00:00.000Z"],
          ],
        );
        assert.deepEqual(all[1]!.variant, { ...variant, layers: [] });
        assert.deepEqual(all[1]!.provenance, { by: "again" });
        assert.deepEqual(
          (await s.listVariants({ status: "accepted" })).map((v) => v.variantId),
          ["v-b"],
        );
        await assert.rejects(
          s.addVariant({ variant, variantId: "v-c", provenance: null, status: "maybe" as never }),
          /accepted or rejected/,
        );
      }));

    test("a run interrupted mid-way resumes from its snapshot with an uninterrupted run's continuation", async () => {
      const gym = defaultGym();
      const config = curriculumConfig({
        id: "resume-me",
        split: SPLIT,
        agent: weakResolved.ref.spec,
        episodes: 12,
        evalEvery: 6,
        snapshotEvery: 4,
        seed: 5,
        budget: { maxSteps: 60, maxVirtualSeconds: 86400, wallTimeoutMs: 20_000 },
      });
      const reference = await runCurriculum(config, {
        gym,
        history: new MemoryHistory(),
        agent: weakResolved,
      });
      assert.equal(reference.episodes.length, 12);

      const location = await fresh();
      const history = await openCurriculumStore(location);
      const store = await openStore(location);
      try {
        const stop = new AbortController();
        const first = await runCurriculum(config, {
          gym,
          store,
          history,
          agent: weakResolved,
          signal: stop.signal,
          onEpisode: (e) => {
            if (e.index === 7) stop.abort();
          },
        });
        assert.equal(first.interrupted, true);
        assert.equal((await history.getRun("resume-me"))?.status, "interrupted");
        const stored = (await history.episodes("resume-me")).length;
        assert.ok(stored >= 7 && stored < 12, `${stored} episodes stored at the interrupt`);
        assert.equal((await history.latestSnapshot("resume-me", stored))?.afterEpisode, 4);

        const resumed = await runCurriculum(config, { gym, store, history, agent: weakResolved });
        assert.equal(resumed.interrupted, false);
        assert.equal(resumed.ranNow, 12 - stored);
        assert.deepEqual(episodeView(resumed.episodes), episodeView(reference.episodes));
        assert.deepEqual(resumed.regression, reference.regression);
        assert.deepEqual(resumed.snapshot, reference.snapshot);
        assert.equal((await history.getRun("resume-me"))?.status, "completed");
        // read back from the store alone (what `curriculum show` prints)
        const read = await readCurriculum(history, "resume-me");
        assert.deepEqual(episodeView(read.episodes), episodeView(reference.episodes));
        assert.equal(read.manifest_hash, reference.manifest_hash);
        // the episodes' trials are in the same database
        const experiment = await store.getExperiment("resume-me");
        assert.ok(experiment, "the run's trials are recorded beside its history");
      } finally {
        await store.close();
        await history.close();
      }
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "cur-dialects-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
curriculumStoreSuite("sqlite", async () => join(dir, `case-${++n}`, "proving.db"), false);

const pgSkip = postgresSkip();
let server: PostgresServer | undefined;
before(async () => {
  if (!pgSkip) server = await startPostgres();
});
after(async () => {
  await server?.destroy();
});
curriculumStoreSuite(
  "postgres",
  () => {
    if (!server) throw new Error("postgres did not start");
    return server.createDatabase();
  },
  pgSkip,
);
