/** The curriculum's health checks (as functions, on hand-built histories) and its report section. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  type CurriculumEpisode,
  type CurriculumEvaluation,
  concentration,
  curriculumConfig,
  curriculumHealth,
  curriculumWindows,
  difficultyRising,
  duplicateTasks,
  openCurriculumStore,
  type ProcessSummary,
  ProcessTracker,
  processByKey,
  regressionInstability,
  runCurriculum,
} from "../../src/curriculum/index.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { curriculumSection, writeHtmlReport } from "../../src/report/html/index.ts";
import { openStore } from "../../src/store/index.ts";
import { SPLIT } from "./fixtures/split.ts";
import { weakResolved } from "./fixtures/weak-agent.ts";

const W = "w@1";
/** A clean 3-step episode's process: the tracker's own empty summary, 3 steps long. */
const clean: ProcessSummary = { ...new ProcessTracker().summary(), steps: 3 };
let n = 0;
function ep(
  family: string,
  difficulty: number,
  passed: boolean,
  extra: Partial<CurriculumEpisode> = {},
): CurriculumEpisode {
  n++;
  return {
    index: n,
    world: W,
    family,
    difficulty,
    split: "dynamic",
    seed: 1000 + n,
    trial: `t${n}`,
    outcome: passed ? "passed" : "failed",
    passed,
    process: clean,
    generation: {
      template: "t",
      seed: 1000 + n,
      params: {},
      ranges: {},
      contentHash: `h${n}`,
      tags: [],
      acceptance: { verifier: "v", checks: [] },
    },
    ...extra,
  };
}
const evaluation = (after: number, passed: number, hash = "m1", planned = 4): CurriculumEvaluation => ({
  after_episode: after,
  planned,
  passed,
  manifest_hash: hash,
  tasks: [],
});

test("windows: share, mean difficulty and pass rate per family, hand-counted", () => {
  n = 0;
  const eps = [ep("a", 1, true), ep("a", 3, false), ep("b", 2, true), ep("a", 2, true)];
  const [w] = curriculumWindows(eps, 4);
  assert.deepEqual(w.share, { [`${W}/a`]: 0.75, [`${W}/b`]: 0.25 });
  assert.deepEqual(w.difficulty, { [`${W}/a`]: 2, [`${W}/b`]: 2 });
  assert.deepEqual(w.passRate, { [`${W}/a`]: 2 / 3, [`${W}/b`]: 1 });
  assert.deepEqual(w.topKey, { key: `${W}/a/d1`, share: 0.25 });
  assert.equal(curriculumWindows(eps, 3).length, 2);
  const p = processByKey([ep("a", 1, true), ep("a", 1, false, { process: { ...clean, toolErrors: 2 } })]);
  assert.deepEqual(p[`${W}/a/d1`], { ...clean, steps: 6, toolErrors: 2 });
});

test("duplicate tasks: one content hash from two different tasks warns; the same task again does not", () => {
  n = 0;
  const a = ep("a", 1, true);
  const again = { ...a, index: 2 };
  assert.equal(duplicateTasks([a, again]).status, "ok");
  const twin = ep("b", 1, true, { generation: { ...a.generation } });
  const f = duplicateTasks([a, twin]);
  assert.equal(f.status, "warn");
  assert.match(f.detail, /w@1\/a\/d1#1001/);
});

test("concentration warns past the threshold only", () => {
  n = 0;
  const even = curriculumWindows([ep("a", 1, true), ep("b", 1, true)], 2);
  assert.equal(concentration(even, 0.5).status, "ok", "exactly half is not past it");
  const hot = curriculumWindows([ep("a", 1, true), ep("a", 1, true), ep("b", 1, true)], 3);
  assert.equal(concentration(hot, 0.5).status, "warn");
  assert.equal(concentration(hot, 0.7).status, "ok");
});

test("difficulty rising N rounds in a row warns; a dip resets the count", () => {
  n = 0;
  const rising = curriculumWindows(
    [ep("a", 1, true), ep("a", 2, true), ep("a", 3, true), ep("a", 4, true)],
    1,
  );
  assert.equal(difficultyRising(rising, 3).status, "warn");
  assert.equal(difficultyRising(rising, 4).status, "ok");
  const dip = curriculumWindows(
    [ep("a", 1, true), ep("a", 2, true), ep("a", 1, true), ep("a", 2, true), ep("a", 3, true)],
    1,
  );
  assert.equal(difficultyRising(dip, 3).status, "ok");
  assert.equal(difficultyRising(dip, 2).status, "warn");
});

test("regression instability: a changed manifest fails, a swing warns, a steady split is ok", () => {
  assert.equal(regressionInstability([evaluation(50, 2), evaluation(100, 3)]).status, "ok");
  assert.equal(regressionInstability([evaluation(50, 1), evaluation(100, 4)]).status, "warn");
  assert.equal(regressionInstability([evaluation(50, 2), evaluation(100, 2, "m2")]).status, "fail");
  assert.equal(regressionInstability([evaluation(50, 2), evaluation(100, 2, "m1", 5)]).status, "fail");
  assert.deepEqual(
    curriculumHealth({ episodes: [], regression: [] }).map((h) => h.status),
    ["ok", "ok", "ok", "ok"],
  );
});

test("the curriculum section renders in the HTML report of a stored run", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "cur-report-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "p.db");
  const gym = defaultGym();
  const history = await openCurriculumStore(file);
  const store = await openStore(file);
  try {
    const config = curriculumConfig({
      id: "rep",
      split: SPLIT,
      agent: weakResolved.ref.spec,
      episodes: 40,
      evalEvery: 20,
      seed: 7,
    });
    const r = await runCurriculum(config, { gym, store, history, agent: weakResolved });
    const section = curriculumSection(r, { window: 10 });
    const families = new Set(r.episodes.map((e) => `${e.world}/${e.family}`));
    for (const f of families) assert.ok(section.includes(`data-family="${f}"`), `share bars of ${f}`);
    assert.equal(
      (section.match(/<svg class="cur-chart/g) ?? []).length,
      4,
      "share, difficulty, pass rate, regression",
    );
    for (const c of ["duplicate-tasks", "concentration", "difficulty-rising", "regression-instability"])
      assert.ok(section.includes(`data-check="${c}"`));
    assert.ok(section.includes(r.manifest_hash));
    const written = await writeHtmlReport(store, "rep", join(dir, "rep.html"), { sections: [section] });
    const html = readFileSync(written.path, "utf8");
    assert.ok(html.includes('<section id="curriculum">'));
  } finally {
    await store.close();
    await history.close();
  }
});
