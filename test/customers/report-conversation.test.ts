/** The trajectory viewer shows a device-support@2 trial's conversation with the customer (headless chromium). */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { BrowserContext } from "playwright-core";
import type { JsonObject } from "../../src/core/json.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { writeHtmlReport } from "../../src/report/html/index.ts";
import { parseExperiment, runExperiment } from "../../src/runner/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { launch, requireChromium, SKIP_BROWSER, watchedPage } from "../report/browser.ts";
import { tempDir } from "../report/fixtures.ts";

let dir: string;
let store: Store;
let context: BrowserContext | undefined;
before(async () => {
  dir = tempDir("conversation");
  store = await openStore(path.join(dir, "proving.db"));
});
after(async () => {
  await context?.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the conversation in the trajectory viewer", { skip: SKIP_BROWSER }, () => {
  test("a stale-address trial shows the agent's messages and the customer's replies, in order", async () => {
    requireChromium();
    const gym = defaultGym();
    const config = parseExperiment({
      id: "talk",
      worlds: ["device-support@2"],
      families: ["stale-address"],
      difficulties: [1],
      agents: ["asks-first"],
      params: { customer: "mistaken" },
    });
    await runExperiment(config, { registry: gym.registry, resolveAgent: gym.resolveAgent, store });
    const [row] = await store.listTrials("talk");
    const record = (await store.getTrial(row.trialId))!;
    const agentTexts = record.steps
      .filter((s) => s.action.tool === "send_message")
      .map((s) => String(s.action.args.text));
    const customerTexts = new Set<string>();
    for (const s of record.steps) {
      const r = s.observation.kind === "tool_result" ? s.observation.result : undefined;
      if (s.action.tool === "read_messages" && r?.ok)
        for (const m of r.messages as JsonObject[])
          if (m.from === "customer") customerTexts.add(String(m.text));
    }
    assert.ok(agentTexts.length >= 3 && customerTexts.size >= 2, "asks, reads back, confirms");

    const file = path.join(dir, "talk.html");
    await writeHtmlReport(store, "talk", file);
    context = await launch(dir);
    const { page, errors } = await watchedPage(context, file);
    await page.goto(`file://${file}`);
    await page.waitForSelector("body[data-ready='1']", { timeout: 60_000 });
    await page.locator("#trial-list tbody tr").first().click();
    await page.waitForSelector("#tv-conversation li");
    const items = page.locator("#tv-conversation li");
    assert.equal(await items.count(), agentTexts.length + customerTexts.size);
    const from = await items.evaluateAll((els) => els.map((e) => e.getAttribute("data-from")));
    assert.equal(from[0], "agent");
    assert.equal(from.filter((f) => f === "customer").length, customerTexts.size);
    const text = (await page.locator("#tv-conversation").textContent()) ?? "";
    for (const t of [...agentTexts, ...customerTexts]) assert.ok(text.includes(t), t);
    assert.match(
      (await page.locator("h3", { hasText: "Conversation" }).textContent()) ?? "",
      /scripted mistaken/,
    );
    assert.deepEqual(errors, []);
  });
});
