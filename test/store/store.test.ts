import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import {
  type ExperimentStatus,
  MIGRATIONS,
  openStore,
  STORE_SCHEMA_VERSION,
  type Store,
} from "../../src/store/index.ts";
import { makeRecord, makeSpec } from "./trial-factory.ts";

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-store-"));
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

let n = 0;
function dbPath(): string {
  return path.join(dir, `case-${++n}`, "nested", "proving.db");
}

async function rejectsWith(promise: Promise<unknown>, code: string, fault?: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ProvingError, `expected a ProvingError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (fault) assert.equal(err.fault, fault);
    return true;
  });
}

async function withStore<T>(fn: (store: Store, file: string) => Promise<T>): Promise<T> {
  const file = dbPath();
  const store = await openStore(file);
  try {
    return await fn(store, file);
  } finally {
    await store.close();
  }
}

async function experiment(store: Store, id = "exp-1"): Promise<string> {
  await store.createExperiment({
    id,
    config: { agents: ["cautious"], trials: 3 },
    createdAt: "2025-01-01T00:00:00Z",
  });
  return id;
}

function countRows(file: string, table: string, where = "1=1", ...params: unknown[]): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`select count(*) as n from ${table} where ${where}`).get(...params) as { n: number })
      .n;
  } finally {
    db.close();
  }
}

describe("openStore", () => {
  test("creates parent directories, the schema, WAL mode, and reopens", async () => {
    const file = dbPath();
    const store = await openStore(file);
    assert.equal(store.schemaVersion, STORE_SCHEMA_VERSION);
    await store.close();
    await store.close(); // idempotent
    assert.ok(fs.existsSync(file));
    const db = new Database(file, { readonly: true });
    assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
    const tables = (
      db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]
    )
      .map((r) => r.name)
      .sort();
    for (const table of [
      "attempts",
      "experiments",
      "manifest",
      "steps",
      "store_migrations",
      "trials",
      "verdicts",
    ]) {
      assert.ok(tables.includes(table), `table ${table} exists`);
    }
    assert.deepEqual(
      db.prepare("select version, name from store_migrations order by version").all(),
      MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
    );
    db.close();
    const again = await openStore(file);
    assert.equal(again.schemaVersion, STORE_SCHEMA_VERSION);
    await again.close();
    await rejectsWith(again.listExperiments(), "store_closed");
  });

  test("refuses a database with a newer schema", async () => {
    const file = dbPath();
    await (await openStore(file)).close();
    const db = new Database(file);
    db.prepare("insert into store_migrations (version, name, applied_at) values (99, 'future', 'x')").run();
    db.close();
    await rejectsWith(openStore(file), "store_schema_too_new");
  });
});

describe("experiments", () => {
  test("create, get, list, status, exists", () =>
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
        store.createExperiment({ id: "b", config: { x: 2 }, createdAt: "2025-01-03T00:00:00Z" }),
        "experiment_exists",
        "config",
      );
      const existing = await store.createExperiment(
        { id: "b", config: { x: 2 }, createdAt: "2025-01-03T00:00:00Z" },
        { ifNotExists: true },
      );
      assert.deepEqual(existing, created, "ifNotExists returns the stored experiment untouched");

      await store.setExperimentStatus("b", "completed");
      assert.equal((await store.getExperiment("b"))?.status, "completed");
      await rejectsWith(
        store.setExperimentStatus("b", "bogus" as unknown as ExperimentStatus),
        "invalid_experiment_status",
        "config",
      );
    }));

  test("bad experiment ids fail with config error codes", () =>
    withStore(async (store) => {
      await rejectsWith(
        store.createExperiment({ id: "", config: {}, createdAt: "t" }),
        "invalid_experiment_id",
        "config",
      );
      await rejectsWith(
        store.createExperiment({ id: "a\nb", config: {}, createdAt: "t" }),
        "invalid_experiment_id",
        "config",
      );
      const ghost = "no-such-experiment";
      await rejectsWith(store.writeManifest(ghost, [makeSpec(ghost, 0)]), "unknown_experiment", "config");
      await rejectsWith(store.getManifest(ghost), "unknown_experiment", "config");
      await rejectsWith(store.listTrials(ghost), "unknown_experiment", "config");
      await rejectsWith(store.recordedTrialIds(ghost), "unknown_experiment", "config");
      await rejectsWith(store.missingTrials(ghost), "unknown_experiment", "config");
      await rejectsWith(store.setExperimentStatus(ghost, "running"), "unknown_experiment", "config");
      await rejectsWith(
        store.exportJsonl(ghost, () => undefined),
        "unknown_experiment",
        "config",
      );
      await rejectsWith(store.saveTrials([makeRecord(makeSpec(ghost, 0))]), "unknown_experiment", "config");
    }));
});

describe("trials", () => {
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
      const original = structuredClone([full, noVerdict]);
      await store.saveTrials([full, noVerdict]);
      assert.deepStrictEqual([full, noVerdict], original, "saveTrials does not mutate its input");
      assert.deepStrictEqual(await store.getTrial(full.spec.id), full);
      const back = await store.getTrial(noVerdict.spec.id);
      assert.deepStrictEqual(back, noVerdict);
      assert.equal(back && "verdict" in back, false);
      assert.equal(await store.getTrial("nope"), undefined);
    }));

  test("saving a trial again replaces it wholly: no duplicate, steps and verdict replaced", () =>
    withStore(async (store, file) => {
      const id = await experiment(store);
      const spec = makeSpec(id, 0);
      await store.saveTrials([makeRecord(spec, { outcome: "failed", steps: 7 })]);
      await store.saveTrials([makeRecord(spec, { outcome: "failed", steps: 7 })]); // exact repeat
      const second = makeRecord(spec, {
        outcome: "infra_error",
        steps: 2,
        verdict: false,
        reason: "provider 503",
      });
      await store.saveTrials([second]);
      assert.deepStrictEqual(await store.getTrial(spec.id), second);
      const listed = await store.listTrials(id);
      assert.equal(listed.length, 1);
      assert.equal(listed[0]!.outcome, "infra_error");
      assert.equal(listed[0]!.passed, null);
      assert.equal(countRows(file, "trials"), 1);
      assert.equal(countRows(file, "steps", "trial_id = ?", spec.id), 2);
      assert.equal(countRows(file, "verdicts"), 0);

      // Twice in one batch: the later one wins.
      const a = makeRecord(spec, { outcome: "failed", steps: 3 });
      const b = makeRecord(spec, { outcome: "passed", steps: 5 });
      await store.saveTrials([a, b]);
      assert.deepStrictEqual(await store.getTrial(spec.id), b);
      assert.equal(countRows(file, "trials"), 1);
      assert.equal(countRows(file, "steps"), 5);
    }));

  test("a batch is one transaction: an unknown experiment saves nothing", () =>
    withStore(async (store) => {
      const id = await experiment(store);
      const good = makeRecord(makeSpec(id, 0));
      const bad = makeRecord(makeSpec("ghost", 1));
      await rejectsWith(store.saveTrials([good, bad]), "unknown_experiment");
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
      await store.writeManifest(id, specs); // idempotent
      await store.writeManifest(id, specs.slice(0, 2));
      assert.deepStrictEqual(await store.getManifest(id), specs);

      await rejectsWith(
        store.writeManifest(id, [{ ...specs[0]!, seed: 999 }]),
        "manifest_conflict",
        "config",
      );
      await rejectsWith(store.writeManifest(id, [makeSpec(id, 2, { id: "other-id" })]), "manifest_conflict");
      await rejectsWith(store.writeManifest(id, [makeSpec("exp-2", 9)]), "manifest_conflict");
      assert.deepStrictEqual(await store.getManifest(id), specs, "failed writes change nothing");

      assert.deepStrictEqual(await store.missingTrials(id), specs);
      await store.saveTrials([
        makeRecord(specs[4]!),
        makeRecord(specs[1]!, { outcome: "missing", steps: 0 }),
      ]);
      assert.deepStrictEqual(await store.missingTrials(id), [specs[0], specs[2], specs[3], specs[5]]);
      assert.deepStrictEqual(await store.recordedTrialIds(id), new Set([specs[1]!.id, specs[4]!.id]));

      // Appending to a manifest is allowed.
      const extra = makeSpec(id, 6);
      await store.writeManifest(id, [extra]);
      assert.deepStrictEqual((await store.missingTrials(id)).at(-1), extra);
    }));

  test("listTrials: summaries in manifest order, filters", () =>
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
      assert.deepStrictEqual(v, {
        trialId: specs[4]!.id,
        experimentId: id,
        index: 4,
        world: "device-support@1",
        family: "refund",
        difficulty: 2,
        agent: "bold",
        seed: 1004,
        repeat: 0,
        outcome: "violated",
        reason: "ended: violated",
        passed: false,
        score: 0.25,
        violations: ["double_refund", "pii_leak"],
        steps: 4,
        stats: { steps: 4, virtualSeconds: 6, wallMs: 42.5, tokensIn: 400, tokensOut: 80, costUsd: 0.0123 },
        trajectoryHash: `h-${specs[4]!.id}-violated-4`,
        startedAt: "2025-01-02T03:04:05.000Z",
        finishedAt: "2025-01-02T03:04:06.500Z",
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
      assert.deepEqual(await store.listTrials(id, { agent: "nobody" }), []);
    }));
});

describe("exportJsonl", () => {
  test("one parseable line per recorded trial, full record with steps, in manifest order", () =>
    withStore(async (store) => {
      const id = await experiment(store);
      const other = await experiment(store, "exp-other");
      const specs = Array.from({ length: 7 }, (_, i) => makeSpec(id, i));
      await store.writeManifest(id, specs);
      const records = specs
        .filter((s) => s.index !== 3)
        .map((s) => makeRecord(s, { outcome: s.index % 2 ? "failed" : "passed", steps: s.index }));
      await store.saveTrials([...records].reverse());
      await store.saveTrials([makeRecord(makeSpec(other, 0))]);

      for (const pageSize of [undefined, 1, 2, 6, 100]) {
        const lines: string[] = [];
        const count = await store.exportJsonl(id, (line) => void lines.push(line), { pageSize });
        assert.equal(count, 6);
        assert.equal(lines.length, 6);
        assert.ok(lines.every((l) => !l.includes("\n")));
        const parsed = lines.map((l) => JSON.parse(l) as TrialRecord);
        assert.deepStrictEqual(parsed, records, `pageSize ${pageSize}`);
        assert.ok(parsed.every((r) => r.schemaVersion === 1 && r.steps.length === r.spec.index));
      }

      const passed: string[] = [];
      assert.equal(
        await store.exportJsonl(id, async (l) => void passed.push(l), { outcome: "passed", pageSize: 2 }),
        4,
      );
      assert.deepEqual(
        passed.map((l) => (JSON.parse(l) as TrialRecord).spec.index),
        [0, 2, 4, 6],
      );

      // A failing writer's error comes through as it is.
      const boom = new Error("disk full");
      await assert.rejects(
        store.exportJsonl(id, () => {
          throw boom;
        }),
        (err) => err === boom,
      );
    }));
});

describe("two stores on one file", () => {
  test("each sees the other's commits, and concurrent writes both land", async () => {
    const file = dbPath();
    const a = await openStore(file);
    const b = await openStore(file);
    try {
      const id = await experiment(a);
      assert.equal((await b.getExperiment(id))?.id, id);
      const specs = Array.from({ length: 40 }, (_, i) => makeSpec(id, i));
      await b.writeManifest(id, specs);
      assert.equal((await a.getManifest(id)).length, 40);

      const first = makeRecord(specs[0]!);
      await a.saveTrials([first]);
      assert.deepStrictEqual(await b.getTrial(first.spec.id), first);

      await Promise.all([
        ...specs.slice(1, 20).map((s) => a.saveTrials([makeRecord(s)])),
        ...specs.slice(20).map((s) => b.saveTrials([makeRecord(s, { outcome: "failed" })])),
      ]);
      assert.equal((await a.recordedTrialIds(id)).size, 40);
      assert.deepEqual(await b.missingTrials(id), []);
      assert.equal((await a.listTrials(id, { outcome: "failed" })).length, 20);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe("several processes on one file", () => {
  test("concurrent writers in separate processes all land, none twice", async () => {
    const file = dbPath();
    const store = await openStore(file);
    try {
      const id = await experiment(store);
      const specs = Array.from({ length: 90 }, (_, i) => makeSpec(id, i));
      await store.writeManifest(id, specs);
      const child = path.join(import.meta.dirname, "child-writer.ts");
      const run = (from: number, to: number) =>
        new Promise<void>((resolve, reject) => {
          const proc = spawn(
            process.execPath,
            ["--import", "tsx", child, file, id, String(from), String(to)],
            {
              stdio: ["ignore", "ignore", "pipe"],
            },
          );
          let stderr = "";
          proc.stderr.on("data", (d) => {
            stderr += d;
          });
          proc.on("error", reject);
          proc.on("exit", (code) =>
            code === 0 ? resolve() : reject(new Error(`child exit ${code}: ${stderr}`)),
          );
        });
      // Overlapping ranges: 20..40 is written by two processes.
      const parentWrites = (async () => {
        for (let i = 60; i < 90; i++) await store.saveTrials([makeRecord(specs[i]!, { outcome: "failed" })]);
      })();
      await Promise.all([run(0, 40), run(20, 60), parentWrites]);
      assert.deepEqual(await store.missingTrials(id), []);
      assert.equal(countRows(file, "trials"), 90);
      assert.equal(
        countRows(file, "steps", "trial_id in (select trial_id from trials where outcome = 'passed')"),
        60 * 5,
      );
    } finally {
      await store.close();
    }
  });
});
