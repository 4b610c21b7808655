/**
 * The trajectory viewer's trial list fits its pane (long violation labels wrap, the steps column
 * stays in view: no horizontal overflow at any width), and the viewer names `proving replay` as the
 * command that re-runs a trial (`proving show` only prints it).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { BrowserContext } from "playwright-core";
import { buildHtmlReport, writeHtmlReport } from "../../src/report/html/index.ts";
import { DEMO_EXPERIMENT } from "../../src/runner/experiment.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { launch, requireChromium, SKIP_BROWSER, watchedPage } from "./browser.ts";
import { runScripted, tempDir } from "./fixtures.ts";

let dir: string;
let store: Store;
let context: BrowserContext | undefined;

before(async () => {
  dir = tempDir("viewer-layout");
  store = await openStore(path.join(dir, "proving.db"));
  await runScripted(store, { ...DEMO_EXPERIMENT, id: "demo", trials: 2 });
});
after(async () => {
  await context?.close();
  await store.close();
  if (process.env.PROVING_KEEP_REPORT_TMP) process.stderr.write(`kept ${dir}\n`);
  else fs.rmSync(dir, { recursive: true, force: true });
});

test("the viewer names `proving replay <trial>` as the re-run command, never `proving show`", async () => {
  const { html } = await buildHtmlReport(store, "demo");
  const rerun = html.slice(html.indexOf('["re-run"'), html.indexOf('["re-run"') + 80);
  assert.match(rerun, /`proving replay \$\{t\.id\}`/);
});

describe("the trial list in headless chromium", { skip: SKIP_BROWSER }, () => {
  test("the trial list never overflows its pane; long violation labels wrap; steps stay in view", async () => {
    requireChromium();
    const file = path.join(dir, "demo.html");
    await writeHtmlReport(store, "demo", file);
    context ??= await launch(dir);
    const { page, errors } = await watchedPage(context, file);
    await page.goto(`file://${file}`);
    await page.waitForSelector("body[data-ready='1']", { timeout: 60_000 });
    await page.selectOption("#tv-outcome", "violated");
    // a worst case: the longest violation labels on the first row, several of them (in the page)
    await page.evaluate(`{
      const cell = document.querySelector("#trial-list tbody tr td:nth-child(4)");
      for (let i = 0; i < 4; i++) {
        const tag = document.createElement("span");
        tag.className = "tag viol";
        tag.textContent = "unauthorized_write_attempt_of_a_very_long_violation_code_" + i;
        cell.append(tag);
      }
    }`);
    for (const width of [1400, 1100, 1000, 820, 500]) {
      await page.setViewportSize({ width, height: 900 });
      const m = (await page.evaluate(`(() => {
        const list = document.getElementById("tv-list");
        const rect = list.getBoundingClientRect();
        const rights = (sel) => [...document.querySelectorAll(sel)].map((e) => e.getBoundingClientRect().right);
        const steps = rights("#trial-list tbody tr td:last-child");
        return {
          scrollWidth: list.scrollWidth,
          clientWidth: list.clientWidth,
          right: rect.right,
          stepsRight: Math.max(...steps),
          tagsRight: Math.max(...rights("#trial-list .tag.viol")),
          rows: steps.length,
        };
      })()`)) as Record<string, number>;
      assert.ok(m.rows > 0, "violated trials are listed");
      assert.ok(m.scrollWidth <= m.clientWidth, `no horizontal overflow at ${width}px: ${JSON.stringify(m)}`);
      assert.ok(m.stepsRight <= m.right, `the steps column is in view at ${width}px: ${JSON.stringify(m)}`);
      assert.ok(m.tagsRight <= m.right, `violation labels are in view at ${width}px: ${JSON.stringify(m)}`);
      await page.locator("#trajectories").screenshot({ path: path.join(dir, `viewer-${width}.png`) });
    }
    // the opened trial names the command that re-runs it
    const first = page.locator("#trial-list tbody tr").first();
    const id = (await first.getAttribute("data-trial")) ?? "";
    await first.click();
    await page.waitForSelector(`#tv-detail[data-trial="${id}"] #tv-steps .step`);
    const rerun = await page.evaluate(`[...document.querySelectorAll("#tv-detail dl.kv dt")]
      .find((d) => d.textContent === "re-run")?.nextElementSibling?.textContent`);
    assert.equal(rerun, `proving replay ${id}`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
