import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { BrowserContext } from "playwright-core";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { writeHtmlReport } from "../../src/report/html/index.ts";
import { DEMO_EXPERIMENT } from "../../src/runner/experiment.ts";
import { wilson } from "../../src/stats/wilson.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { launch, requireChromium, SKIP_BROWSER, watchedPage } from "./browser.ts";
import { runScripted, tempDir } from "./fixtures.ts";

let dir: string;
let store: Store;
let context: BrowserContext | undefined;

before(async () => {
  dir = tempDir("browser");
  store = await openStore(path.join(dir, "proving.db"));
});
after(async () => {
  await context?.close();
  await store.close();
  if (process.env.PROVING_KEEP_REPORT_TMP) process.stderr.write(`kept ${dir}\n`);
  else fs.rmSync(dir, { recursive: true, force: true });
});

const browser = async () => {
  context ??= await launch(dir);
  return context;
};

const num = async (page: import("playwright-core").Page, metric: string) => {
  const el = page.locator(`[data-metric="${metric}"]`);
  return Number((await el.getAttribute("data-value")) ?? (await el.textContent()));
};

describe("the HTML report in headless chromium", { skip: SKIP_BROWSER }, () => {
  test("demo run: headline equals the store, a failed trial's trajectory opens, no console errors", async (t) => {
    requireChromium();
    await runScripted(store, { ...DEMO_EXPERIMENT, id: "demo" });
    const file = path.join(dir, "demo.html");
    const report = await writeHtmlReport(store, "demo", file);
    const { page, errors, foreign } = await watchedPage(await browser(), file);
    const started = Date.now();
    await page.goto(`file://${file}`);
    await page.waitForSelector("body[data-ready='1']", { timeout: 60_000 });
    const loadMs = Date.now() - started;

    // headline against the store
    const manifest = await store.getManifest("demo");
    const recorded = await store.listTrials("demo");
    const count = (o: string) => recorded.filter((r) => r.outcome === o).length;
    const passed = count("passed");
    const w = wilson(passed, manifest.length);
    assert.equal(await num(page, "planned"), manifest.length);
    assert.equal(await num(page, "ran"), recorded.length);
    assert.equal(await num(page, "passed"), passed);
    assert.equal(await num(page, "pass_rate"), passed / manifest.length);
    assert.equal(await num(page, "pass_rate_lo"), w.lo);
    assert.equal(await num(page, "pass_rate_hi"), w.hi);
    assert.equal(await num(page, "violated_trials"), recorded.filter((r) => r.violations.length).length);
    for (const o of ["passed", "failed", "violated", "missing"])
      assert.equal(Number(await page.locator(`[data-outcome-count="${o}"]`).textContent()), count(o), o);
    assert.ok(count("failed") > 0 && count("violated") > 0, "the demo has failures and violations");

    // the breakdown's total row, computed in the page, agrees with the Node Wilson interval
    const total = page.locator("#breakdown-table tbody tr:last-child td[data-rate]");
    assert.ok(Math.abs(Number(await total.getAttribute("data-lo")) - w.lo) < 1e-12);
    assert.ok(Math.abs(Number(await total.getAttribute("data-hi")) - w.hi) < 1e-12);
    assert.equal(await page.locator("#breakdown-table tbody tr").count(), 5 * 8 + 1, "agent × family + all");

    // a breakdown row and a headline outcome row each list their trials in the viewer
    const cell = page.locator("#breakdown-table tbody tr").nth(1);
    const [agent, family] = JSON.parse((await cell.getAttribute("data-cell"))!) as string[];
    await cell.click();
    assert.equal(
      Number(await page.locator("#tv-count").getAttribute("data-count")),
      recorded.filter((r) => r.agent === agent && r.family === family).length,
    );
    assert.equal(await page.locator("#tv-family").inputValue(), family);
    await page.locator('#outcomes tr[data-filter-outcome="violated"]').click();
    assert.equal(Number(await page.locator("#tv-count").getAttribute("data-count")), count("violated"));
    assert.equal(await page.locator("#tv-agent").inputValue(), "", "a new pick replaces the old filters");

    // open a failed trial from the viewer's outcome filter
    await page.selectOption("#tv-outcome", "failed");
    assert.equal(Number(await page.locator("#tv-count").getAttribute("data-count")), count("failed"));
    const first = page.locator("#trial-list tbody tr").first();
    const trialId = (await first.getAttribute("data-trial"))!;
    assert.equal(await first.getAttribute("data-outcome"), "failed");
    await first.click();
    await page.waitForSelector(`#tv-detail[data-trial="${trialId}"] #tv-steps .step`);
    const record = (await store.getTrial(trialId)) as TrialRecord;
    assert.equal(record.outcome, "failed");
    assert.equal(await page.locator("#tv-steps .step").count(), record.steps.length);
    assert.equal(await page.locator("#tv-checks li").count(), record.verdict!.checks.length);
    assert.equal(
      await page.locator('#tv-checks li[data-passed="false"]').count(),
      record.verdict!.checks.filter((c) => !c.passed).length,
    );
    assert.equal((await page.locator("#tv-reason").textContent())?.trim(), record.reason);
    for (const [i, s] of record.steps.entries())
      assert.equal(
        (await page.locator(`#step-${s.index} .tool`).textContent())?.trim(),
        record.steps[i].action.tool,
      );
    await page.locator("#trajectories").screenshot({ path: path.join(dir, "failed-trial.png") });

    // a violated trial: the violation points at its step
    await page.selectOption("#tv-outcome", "violated");
    const v = page.locator("#trial-list tbody tr").first();
    const vid = (await v.getAttribute("data-trial"))!;
    await v.click();
    await page.waitForSelector(`#tv-detail[data-trial="${vid}"] #tv-violations li`);
    const vrec = (await store.getTrial(vid)) as TrialRecord;
    const violation = vrec.verdict!.violations[0];
    const link = page.locator(`#tv-violations li[data-code="${violation.code}"] a`).first();
    if (violation.step >= 0) {
      await link.click();
      const stepCard = page.locator(`#step-${violation.step}`);
      assert.match((await stepCard.getAttribute("class")) ?? "", /\bviolated\b/);
      assert.ok((await stepCard.textContent())?.includes(violation.code));
    }
    await page.screenshot({ path: path.join(dir, "violated-trial.png") });
    await page.screenshot({ path: path.join(dir, "report.png"), fullPage: true });
    for (const f of ["failed-trial.png", "violated-trial.png", "report.png"])
      assert.ok(fs.statSync(path.join(dir, f)).size > 10_000, `${f} was saved`);

    assert.deepEqual(errors, []);
    assert.deepEqual(foreign, [], "the report fetched nothing");
    t.diagnostic(
      `demo: ${manifest.length} trials, ${(report.bytes / 1e6).toFixed(2)} MB, ready in ${loadMs} ms`,
    );
    await page.close();
  });

  test("5,000 trials: under 10 MB, every trajectory embedded, opens and stays usable", {
    timeout: 900_000,
  }, async (t) => {
    requireChromium();
    const t0 = Date.now();
    await runScripted(store, { id: "big", difficulties: [1, 2, 3, 4, 5], trials: 25 });
    const runMs = Date.now() - t0;
    const file = path.join(dir, "big.html");
    const t1 = Date.now();
    const report = await writeHtmlReport(store, "big", file);
    const buildMs = Date.now() - t1;
    assert.equal(report.summary.planned, 5000);
    assert.equal(report.embedded, 5000);
    assert.equal(report.omitted, 0);
    assert.ok(report.bytes < 10_000_000, `report is ${report.bytes} bytes`);

    const { page, errors, foreign } = await watchedPage(await browser(), file);
    const started = Date.now();
    await page.goto(`file://${file}`, { timeout: 120_000 });
    await page.waitForSelector("body[data-ready='1']", { timeout: 120_000 });
    const loadMs = Date.now() - started;
    assert.equal(await num(page, "planned"), 5000);
    assert.equal(await num(page, "passed"), report.summary.outcomes.passed);
    assert.ok(
      (await page.locator("#trial-list tbody tr").count()) <= 50,
      "the list renders one page at a time",
    );

    // the last trial lives in the last chunk: open it by link
    const rows = await store.listTrials("big");
    const last = rows[rows.length - 1];
    const t2 = Date.now();
    await page.evaluate(`location.hash = "trial=" + encodeURIComponent(${JSON.stringify(last.trialId)})`);
    await page.waitForSelector(`#tv-detail[data-trial="${last.trialId}"] #tv-steps .step`, {
      timeout: 60_000,
    });
    const openMs = Date.now() - t2;
    assert.equal(await page.locator("#tv-steps .step").count(), last.steps);

    await page.selectOption("#tv-violation", "duplicate_write");
    assert.equal(
      Number(await page.locator("#tv-count").getAttribute("data-count")),
      rows.filter((r) => r.violations.includes("duplicate_write")).length,
    );
    await page.screenshot({ path: path.join(dir, "big.png") });
    assert.deepEqual(errors, []);
    assert.deepEqual(foreign, []);
    t.diagnostic(
      `5000 trials: run ${runMs} ms, report built in ${buildMs} ms, ${(report.bytes / 1e6).toFixed(2)} MB, ready in ${loadMs} ms, last trial opened in ${openMs} ms`,
    );
    await page.close();
  });
});
