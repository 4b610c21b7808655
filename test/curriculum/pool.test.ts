/**
 * Generation off the main path: tasks pre-generated into the pool, gated, failures stored never fatal;
 * a plugin world whose generator throws for one family and hangs for some seeds never stalls a run.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { WorldDefinition } from "../../src/core/registry.ts";
import {
  curriculumConfig,
  MemoryHistory,
  parseSplitFile,
  runCurriculum,
} from "../../src/curriculum/index.ts";
import { fillPool } from "../../src/curriculum/task-pool.ts";
import { loadGym } from "../../src/gym/load-gym.ts";
import { toyWorld } from "../support/toy-world.ts";
import { FLAKY_ID } from "./fixtures/flaky-world-plugin.ts";

const PLUGIN = fileURLToPath(new URL("./fixtures/flaky-world-plugin.ts", import.meta.url));

const SPLIT = parseSplitFile(
  JSON.stringify({
    name: "flaky",
    regression: { version: 1, tasks: [{ world: FLAKY_ID, family: "reach", difficulty: 1, seeds: [2] }] },
    dynamic: { worlds: [FLAKY_ID] },
  }),
  "flaky.json",
);

const agent = {
  ref: { id: "good", kind: "test", spec: "good" },
  forWorld: (w: { policies: Record<string, unknown> }) => w.policies.good,
} as never;

test("a throwing or hanging generator is logged as failed; the run samples only accepted pooled tasks", async () => {
  const gym = await loadGym({ schemaVersion: 1, plugins: [PLUGIN], worlds: [FLAKY_ID] });
  const history = new MemoryHistory();
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 50);
  const config = curriculumConfig({
    id: "flaky-run",
    split: SPLIT,
    agent: "good",
    episodes: 12,
    evalEvery: 6,
    strategy: "uniform",
    difficulty: false,
    budget: { maxSteps: 40, wallTimeoutMs: 20_000 },
    pool: { perKey: 2, timeoutMs: 1500 },
  });
  let poolTicks = -1;
  const started = Date.now();
  const result = await runCurriculum(config, {
    gym,
    history,
    agent,
    onPool: () => {
      poolTicks = ticks;
    },
  }).finally(() => clearInterval(ticker));
  const rows = await history.tasks("flaky-run");
  assert.equal(rows.length, 12, "2 families x 3 difficulties x 2 seeds, every request recorded");
  const by = (s: string) => rows.filter((r) => r.status === s);
  assert.equal(by("accepted").length, 3, "reach, even seeds");
  assert.ok(by("accepted").every((r) => r.task_key.includes("/reach/") && r.seed % 2 === 0));
  assert.ok(by("accepted").every((r) => JSON.parse(r.known_good ?? "{}").actions.includes("finish")));
  const failed = by("failed");
  assert.equal(failed.length, 9);
  assert.equal(failed.filter((r) => /template bug/.test(r.reason)).length, 6);
  assert.equal(failed.filter((r) => /timed out/.test(r.reason)).length, 3);
  assert.ok(poolTicks > 10, `the run's thread kept running while generators hung (${poolTicks} ticks)`);
  assert.ok(Date.now() - started < 60_000);

  assert.equal(result.episodes.length, 12);
  assert.ok(result.episodes.every((e) => e.family === "reach" && e.seed % 2 === 0 && e.passed));
  assert.deepEqual(
    result.regression.map((r) => r.passed),
    [1, 1],
  );

  // a resume reads the pool back: nothing is generated again, the continuation is the same
  const more = await runCurriculum({ ...config, episodes: 16 }, { gym, history, agent });
  assert.equal((await history.tasks("flaky-run")).length, 12);
  assert.equal(more.episodes.length, 16);
  assert.deepEqual(more.episodes.slice(0, 12), result.episodes);
});

test("duplicates by content hash are rejected across the pool; inline generation applies the time budget", async () => {
  const base = toyWorld({}, FLAKY_ID);
  // a generator that ignores the seed: every seed gives the same content
  const same: WorldDefinition = { ...base, generateTask: (req) => base.generateTask({ ...req, seed: 2 }) };
  const gym = { world: () => same, describe: () => assert.fail("inline: no thread") };
  const history = new MemoryHistory();
  const key = { world: FLAKY_ID, family: "reach", difficulty: 1 };
  let t = 0;
  const opts = { gym, cache: history, poolId: "p", now: () => new Date(0), clock: () => t++ };
  const rows = await fillPool(
    [
      { key, seed: 2 },
      { key, seed: 2 },
      { key, seed: 4 },
    ],
    { ...opts, pool: { perKey: 1, thread: false } },
  );
  assert.deepEqual(
    rows.map((r) => [r.seed, r.status, r.reason]),
    [
      [2, "accepted", ""],
      [4, "rejected", "duplicate"],
    ],
  );
  const again = await fillPool([{ key, seed: 6 }], { ...opts, pool: { perKey: 1, thread: false } });
  assert.equal(again[2].reason, "duplicate", "against the pool already stored");
  const slow = await fillPool([{ key, seed: 8 }], {
    ...opts,
    poolId: "q",
    pool: { perKey: 1, thread: false, budgetMs: 5 },
    clock: () => (t += 10),
  });
  assert.equal(slow[0].status, "failed");
  assert.match(slow[0].reason, /too slow: 10 ms > 5 ms/);
});
