import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { escapeHtml, scriptJson } from "../../src/report/html/escape.ts";
import {
  buildHtmlReport,
  compareForReport,
  loadExperimentRows,
  type PackedTrial,
  type PageRow,
  writeHtmlReport,
} from "../../src/report/html/index.ts";
import { comparePaired } from "../../src/stats/compare-paired.ts";
import { wilson } from "../../src/stats/wilson.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { embedded, metrics, runScripted, tempDir } from "./fixtures.ts";

let dir: string;
let store: Store;

before(async () => {
  dir = tempDir("unit");
  store = await openStore(path.join(dir, "proving.db"));
  await runScripted(store, { id: "all-agents", difficulties: [1, 2], trials: 2 });
  await runScripted(store, { id: "cautious", agents: ["cautious"], difficulties: [1, 2], trials: 2 });
  await runScripted(store, { id: "new-key", agents: ["new-key-retry"], difficulties: [1, 2], trials: 2 });
  await runScripted(store, {
    id: "seed-100",
    agents: ["cautious"],
    difficulties: [1, 2],
    trials: 2,
    seed: 100,
  });
  // interrupted after a few trials: the rest stay planned and must show as missing
  const stop = new AbortController();
  await runScripted(
    store,
    { id: "interrupted", agents: ["cautious"], difficulties: [1], trials: 3, concurrency: 1 },
    { signal: stop.signal, onTrial: (done) => done >= 5 && stop.abort() },
  );
});

after(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("html report", () => {
  test("is self-contained: a CSP that forbids fetching, no external URL, no remote asset", async () => {
    const { html } = await buildHtmlReport(store, "all-agents");
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
    const urls = [...html.matchAll(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"'<)]*/gi)].map((m) => m[0]);
    const foreign = urls.filter((u) => !/^http:\/\/www\.w3\.org\/(2000\/svg|1999\/xlink)$/.test(u));
    assert.deepEqual(foreign, []);
    assert.doesNotMatch(html, /<(?:img|link|iframe|object|embed)\b[^>]*(?:src|href)=/i);
    assert.doesNotMatch(html, /<script[^>]+src=/i);
    assert.doesNotMatch(html, /\b(?:fetch|XMLHttpRequest|WebSocket|EventSource)\s*\(/);
  });

  test("headline numbers are the store's: planned, ran, passed, Wilson interval, violations", async () => {
    const { html, summary } = await buildHtmlReport(store, "all-agents");
    const manifest = await store.getManifest("all-agents");
    const recorded = await store.listTrials("all-agents");
    const passed = recorded.filter((r) => r.outcome === "passed").length;
    const w = wilson(passed, manifest.length);
    const m = metrics(html);
    assert.equal(Number(m.planned), manifest.length);
    assert.equal(Number(m.ran), recorded.length);
    assert.equal(Number(m.passed), passed);
    assert.equal(Number(m.pass_rate), w.estimate);
    assert.equal(Number(m.pass_rate_lo), w.lo);
    assert.equal(Number(m.pass_rate_hi), w.hi);
    assert.equal(Number(m.violated_trials), recorded.filter((r) => r.violations.length > 0).length);
    assert.ok(summary.violated_trials > 0, "the scripted policies include violators");
    for (const [code, n] of Object.entries(summary.violations))
      assert.match(html, new RegExp(`data-violation-count="${code}">${n}<`));
  });

  test("a planned trial that never ran counts as missing, in the denominator", async () => {
    const { html, summary } = await buildHtmlReport(store, "interrupted");
    const missing = await store.missingTrials("interrupted");
    assert.ok(missing.length > 0, "the run was interrupted");
    assert.equal(summary.planned, 24);
    assert.equal(summary.outcomes.missing, missing.length);
    const m = metrics(html);
    assert.equal(Number(m.planned), 24);
    assert.equal(Number(m.missing), missing.length);
    assert.equal(Number(m.pass_rate), summary.outcomes.passed / 24);
    const rows = (await embedded(html, "pg-rows")) as PageRow[];
    const missingRows = rows.filter((r) => r.outcome === "missing");
    assert.deepEqual(
      missingRows.map((r) => r.id),
      missing.map((s) => s.id),
    );
    assert.ok(
      missingRows.every((r) => r.at === undefined),
      "missing trials have no trajectory",
    );
  });

  test("embeds every trial's rows and full trajectory, compressed, in chunks", async () => {
    const { html, embedded: n } = await buildHtmlReport(store, "all-agents", { chunkSize: 7 });
    const rows = (await embedded(html, "pg-rows")) as PageRow[];
    const recorded = await store.listTrials("all-agents");
    assert.equal(rows.length, recorded.length);
    assert.equal(n, recorded.length);
    const chunks = Math.ceil(recorded.length / 7);
    assert.ok(html.includes(`id="pg-traj-${chunks - 1}"`));
    assert.ok(!html.includes(`id="pg-traj-${chunks}"`));
    const tools = (await embedded(html, "pg-tools")) as unknown[][];
    assert.equal(tools.length, 1, "one tool list, shared by every trial");
    for (const r of [
      rows[0],
      rows[rows.length - 1],
      ...rows.filter((x) => x.outcome === "violated").slice(0, 3),
    ]) {
      assert.ok(r.at);
      const chunk = (await embedded(html, `pg-traj-${r.at[0]}`)) as PackedTrial[];
      const packed = chunk[r.at[1]];
      const record = (await store.getTrial(r.id)) as TrialRecord;
      assert.equal(packed.id, r.id);
      assert.deepEqual(packed.steps, record.steps);
      assert.deepEqual(packed.verdict, record.verdict);
      assert.equal(packed.task.instruction, record.task.instruction);
      assert.equal(packed.initial?.tools, 0);
      assert.deepEqual(tools[0], record.initial?.kind === "task" ? record.initial.tools : undefined);
      assert.deepEqual(r.v, record.verdict?.violations.map((v) => v.code) ?? []);
    }
  });

  test("a size budget leaves trajectories out and says so, keeping every row", async () => {
    const small = await buildHtmlReport(store, "all-agents", { chunkSize: 10, maxTrajectoryBytes: 6000 });
    const rows = (await embedded(small.html, "pg-rows")) as PageRow[];
    assert.ok(small.omitted > 0);
    assert.equal(small.embedded + small.omitted, rows.length);
    assert.equal(rows.filter((r) => r.at).length, small.embedded);
    const meta = JSON.parse(
      /<script type="application\/json" id="pg-meta">([^<]*)<\/script>/.exec(small.html)![1],
    );
    assert.equal(meta.omitted, small.omitted);
  });

  test("writes the file atomically, creating directories", async () => {
    const file = path.join(dir, "out", "nested", "r.html");
    const r = await writeHtmlReport(store, "cautious", file);
    assert.equal(r.path, file);
    assert.equal(fs.statSync(file).size, r.bytes);
    assert.deepEqual(
      fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith(".tmp")),
      [],
    );
  });

  test("an experiment with nothing planned still renders", async () => {
    await store.createExperiment({ id: "empty", config: {}, createdAt: "2026-01-01T00:00:00Z" });
    const { html, summary } = await buildHtmlReport(store, "empty");
    assert.equal(summary.planned, 0);
    assert.equal(Number(metrics(html).planned), 0);
    assert.deepEqual(await embedded(html, "pg-rows"), []);
  });

  test("an unknown experiment is a config error", async () => {
    await assert.rejects(buildHtmlReport(store, "nope"), { code: "unknown_experiment" });
  });
});

describe("comparison (compareExperiments of src/report/compare.ts, shown with both headlines)", () => {
  test("pairs two single-agent experiments on task and seed; differences match comparePaired", async () => {
    const a = await loadExperimentRows(store, "cautious");
    const b = await loadExperimentRows(store, "new-key");
    const c = compareForReport(a, b);
    const p = c.paired!;
    assert.deepEqual(c.problems, []);
    assert.equal(p.pairs, a.rows.length);
    assert.deepEqual(
      p.agents.map((x) => [x.a, x.b]),
      [["cautious", "new-key-retry"]],
    );
    const bySeed = new Map(b.rows.map((r) => [`${r.family}/${r.difficulty}/${r.seed}`, r]));
    const pairs = a.rows.map((r) => ({
      a: r.outcome === "passed",
      b: bySeed.get(`${r.family}/${r.difficulty}/${r.seed}`)!.outcome === "passed",
    }));
    const expected = comparePaired(pairs);
    assert.equal(p.a_only, expected.a_only);
    assert.equal(p.b_only, expected.b_only);
    assert.deepEqual(p.difference, expected.difference);
    assert.ok(p.a_only > 0, "new-key-retry fails lost-reply tasks cautious passes");
    assert.equal(p.by_family["lost-reply"].a_only, p.by_family["lost-reply"].pairs);
    assert.equal(p.by_family["approved-replacement"].difference.estimate, 0);
    assert.equal(c.a.passed, a.rows.filter((r) => r.outcome === "passed").length);
  });

  test("same agents pair by agent; agents in one experiment only are left out with a warning", async () => {
    const all = await loadExperimentRows(store, "all-agents");
    const self = compareForReport(all, all);
    assert.equal(self.paired!.pairs, all.rows.length);
    assert.equal(self.paired!.difference.estimate, 0);
    const cautious = await loadExperimentRows(store, "cautious");
    const partial = compareForReport(all, cautious);
    assert.equal(partial.paired!.pairs, cautious.rows.length);
    assert.ok(
      partial.warnings.some((w) => /only one experiment/.test(w)),
      partial.warnings.join("; "),
    );
  });

  test("experiments that do not share tasks: problems listed loudly, numbers only for what pairs", async () => {
    const interrupted = await loadExperimentRows(store, "interrupted");
    const some = compareForReport(interrupted, await loadExperimentRows(store, "new-key"));
    assert.ok(some.problems.length > 0);
    assert.ok(some.paired && some.paired.pairs > 0);
    const none = compareForReport(
      await loadExperimentRows(store, "cautious"),
      await loadExperimentRows(store, "seed-100"),
    );
    assert.equal(none.paired, undefined);
    assert.ok(none.error);
    const { html } = await buildHtmlReport(store, "cautious", { compareWith: "seed-100" });
    assert.match(html, /id="cmp-problems"/);
    assert.doesNotMatch(html, /id="cmp-family"/);
  });

  test("the report shows the comparison section with per-family rows", async () => {
    const { html, comparison } = await buildHtmlReport(store, "cautious", { compareWith: "new-key" });
    assert.ok(comparison?.paired);
    assert.match(html, /<section id="comparison">/);
    assert.doesNotMatch(html, /id="cmp-problems"/);
    for (const family of Object.keys(comparison.paired.by_family))
      assert.ok(html.includes(`data-family="${family}"`));
  });
});

describe("escaping", () => {
  test("data cannot close a script element or inject markup", () => {
    const evil = { reason: "</script><script>alert(1)</script>\u2028" };
    const json = scriptJson(evil);
    assert.doesNotMatch(json, /<\/script/i);
    assert.deepEqual(JSON.parse(json), evil);
    assert.equal(escapeHtml(`<a href="x">'&`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;");
  });
});
