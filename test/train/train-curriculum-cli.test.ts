/**
 * `proving train curriculum` through the real CLI: a small seeded run (one world, two strategies, two
 * seeds, 60 episodes evaluated every 20). Its JSON has a curve point per evaluation per strategy per
 * seed; the uniform arm samples the trained families near uniformly; the HTML report has the
 * learning-curves section with its charts; the runs are kept in the store (run again with the same
 * id: nothing new is played, the same figures in the text table).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { StrategyComparison } from "../../src/train/index.ts";
import { parseJson, runCli } from "../support/cli.ts";

interface TrainJson extends Omit<StrategyComparison, "schemaVersion"> {
  schemaVersion: number;
  id: string;
  settings: { heldout: Record<string, string[]>; episodes: number; eval_every: number };
  runs: {
    id: string;
    agent: string;
    strategy: string;
    seed: number;
    episodes: number;
    regression: { after: number; passed: number; counted: number; rate: number | null }[];
    heldout: { after: number; rate: number | null }[];
  }[];
  report: string | null;
}

test("proving train curriculum: curves per evaluation, strategy and seed; uniform samples uniformly; a report", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "train-cur-"));
  const store = path.join(dir, "store.db");
  const report = path.join(dir, "curves.html");
  const args = [
    "train",
    "curriculum",
    "--world",
    "device-support@1",
    "--strategies",
    "learnability,uniform",
    "--seeds",
    "1,2",
    "--episodes",
    "60",
    "--eval-every",
    "20",
    "--id",
    "small",
    "--store",
    store,
  ];
  const r = await runCli([...args, "--json", "--report", report]);
  assert.equal(r.code, 0, r.stderr);
  const out = parseJson<TrainJson>(r);
  assert.equal(out.schemaVersion, 1);
  assert.deepEqual(out.settings.heldout, { "device-support@1": ["unverifiable"] });

  // one run per strategy × seed, each with an evaluation point after 20, 40 and 60 episodes
  assert.deepEqual(
    out.runs.map((x) => [x.id, x.agent, x.episodes]),
    [
      ["small/device-support@1/learnability/s1", "learner:q?seed=1", 60],
      ["small/device-support@1/learnability/s2", "learner:q?seed=2", 60],
      ["small/device-support@1/uniform/s1", "learner:q?seed=1", 60],
      ["small/device-support@1/uniform/s2", "learner:q?seed=2", 60],
    ],
  );
  for (const x of out.runs) {
    assert.deepEqual(
      x.regression.map((p) => [p.after, p.counted]),
      [
        [20, 14],
        [40, 14],
        [60, 14],
      ],
      `${x.id}: 7 trained families × seeds 1, 2`,
    );
    assert.deepEqual(
      x.heldout.map((p) => p.after),
      [20, 40, 60],
    );
  }
  const [world] = out.worlds;
  assert.equal(world.world, "device-support@1");
  for (const s of world.strategies) {
    assert.deepEqual(
      s.regression.map((p) => [p.after, p.n]),
      [
        [20, 2],
        [40, 2],
        [60, 2],
      ],
    );
    assert.equal(s.episodesToTarget.length, 2);
  }
  assert.equal(world.comparisons.length, 1);
  assert.equal(world.comparisons[0].strategy, "learnability");

  // uniform draws over the keys the difficulty controller has unlocked; in the first 60 episodes every
  // family has the same levels, so each of the 7 trained families gets about 1/7 (≈ 14%): each within
  // ±8 points over the 2 × 60 episodes (binomial sd ≈ 3.2 points); the held-out family is never sampled
  const uniform = world.strategies.find((s) => s.strategy === "uniform");
  assert.ok(uniform);
  const total: Record<string, number> = {};
  for (const w of uniform.shares)
    for (const [f, v] of Object.entries(w.family)) total[f] = (total[f] ?? 0) + v / uniform.shares.length;
  assert.equal(Object.keys(total).length, 7, JSON.stringify(total));
  assert.ok(!("unverifiable" in total));
  for (const [f, v] of Object.entries(total)) assert.ok(Math.abs(v - 1 / 7) <= 0.08, `${f}: ${v}`);

  // the report: the learning-curves section with a chart per split and a share chart per strategy
  assert.equal(out.report, report);
  const html = fs.readFileSync(report, "utf8");
  const section = html.slice(html.indexOf('<section id="learning-curves">'));
  assert.ok(section.startsWith('<section id="learning-curves">'));
  assert.match(section, /data-world="device-support@1"/);
  assert.ok((section.match(/<svg/g) ?? []).length >= 4, "regression, held out, a share chart per strategy");
  assert.match(section, /data-strategy="learnability"/);
  assert.match(section, /data-strategy="uniform"/);

  // the same id again: every run is complete in the store, nothing is played; the text table
  const again = await runCli(args);
  assert.equal(again.code, 0, again.stderr);
  assert.equal((again.stderr.match(/0 episode\(s\) now, 60 in all/g) ?? []).length, 4, again.stderr);
  assert.match(again.stdout, /learnability \(default\)/);
  assert.match(again.stdout, /learnability ÷ uniform: episodes to 80%/);
  const last = (s: (typeof world.strategies)[number]) => s.regression[s.regression.length - 1].mean;
  for (const s of world.strategies)
    assert.match(again.stdout, new RegExp(`at 60: ${Math.round(100 * last(s))}%`), s.strategy);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("proving train curriculum refuses an unknown strategy, a seed in --learner-options, a target past 1", async () => {
  const bad = await runCli([
    "train",
    "curriculum",
    "--strategies",
    "learnability,nope",
    "--store",
    "/nonexistent/x.db",
  ]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown strategy "nope"/);
  const seeded = await runCli([
    "train",
    "curriculum",
    "--learner-options",
    "seed=3",
    "--store",
    "/nonexistent/x.db",
  ]);
  assert.equal(seeded.code, 2);
  assert.match(seeded.stderr, /the seed is each run's/);
  const target = await runCli(["train", "curriculum", "--target", "80", "--store", "/nonexistent/x.db"]);
  assert.equal(target.code, 2);
  assert.match(target.stderr, /--target is a pass rate/);
});
