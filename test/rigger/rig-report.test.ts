/**
 * The rigger section of the HTML report and `proving rig`'s text output show the LLM diagnosis: the
 * validated diagnoses (kept, with what became of each), the claims dropped and why, the replies and
 * the prompt. End to end through the CLI against the fake provider (OpenAI wire format), with a model
 * whose strings are hostile HTML, a `javascript:` URL and terminal escapes: the page renders them as
 * inert text (checked on the HTML and in headless chromium), the terminal gets them escaped.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { BrowserContext } from "playwright-core";
import { type FakeLlmServer, type FakeRequest, startFakeLlmServer } from "../../src/agents/llm/fake/index.ts";
import { llmDiagnosisUse } from "../../src/report/html/rigger-llm-section.ts";
import { riggerSection } from "../../src/report/html/rigger-section.ts";
import type { LlmDiagnosisRecord } from "../../src/rigger/llm-diagnoser.ts";
import type { RigResult } from "../../src/rigger/rig.ts";
import { launch, requireChromium, SKIP_BROWSER, watchedPage } from "../report/browser.ts";
import { runCli } from "../support/cli.ts";
import { gym, shownTrials } from "./support.ts";

const WORLD = "device-support@1";
const PLUGIN = fileURLToPath(new URL("./agents/planted-plugin.ts", import.meta.url));
/** Model-written text that would run script, break the table or link out if it were not escaped. */
const HOSTILE = `</td></tr></table><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><a href="javascript:window.__pwned = 3">see</a> \u001b[2J`;
const BAD_TRIAL = `"><script>window.__pwned = 4</script>`;
const JS_TRIAL = "javascript:window.__pwned = 5";
const BAD_PATTERN = "javascript:alert(1)";

/** A model that names the planted weakness with valid evidence and a hostile summary, and makes hostile invalid claims. */
function hostileModel(req: FakeRequest) {
  const trials = shownTrials(req.turns[0].text).filter((t) => t.outcome !== "passed");
  const evidence = trials.flatMap((t) => {
    const write = t.steps.find((s) => s.tool === "create_replacement" && s.answer.includes('"ok":false'));
    const last = t.steps.at(-1);
    return write && last && last.index > write.index
      ? [{ trial_id: t.id, steps: [write.index, last.index] }]
      : [];
  });
  const diagnoses = [
    {
      pattern: "unobserved-claim",
      axis: "observation",
      tool: "create_replacement",
      summary: HOSTILE,
      evidence: [
        ...evidence.slice(0, 2),
        { trial_id: BAD_TRIAL, steps: [0] },
        { trial_id: JS_TRIAL, steps: [1] },
      ],
    },
    { pattern: BAD_PATTERN, axis: "action", summary: HOSTILE, evidence: evidence.slice(0, 1) },
  ];
  return { text: `\`\`\`json\n${JSON.stringify({ diagnoses })}\n\`\`\`` };
}

describe("the rigger report shows the LLM diagnosis, inert", () => {
  let dir: string;
  let server: FakeLlmServer;
  let html: string;
  let section: string;
  let stdout: string;
  let reportFile: string;
  let context: BrowserContext | undefined;
  let replies = 0;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "rig-report-"));
    server = await startFakeLlmServer({
      apiKey: "test-key",
      model: (req) => {
        replies++;
        return hostileModel(req);
      },
    });
    const gymFile = path.join(dir, "gym.json");
    const desc = gym.describe();
    fs.writeFileSync(
      gymFile,
      JSON.stringify({ ...desc, plugins: [PLUGIN], agentKinds: [...desc.agentKinds, "planted"] }),
    );
    reportFile = path.join(dir, "rig.html");
    const r = await runCli(
      [
        "--gym",
        gymFile,
        "rig",
        "--world",
        WORLD,
        "--agent",
        "planted:device-claims",
        "--diagnoser",
        "both:openai:diag-model",
        "--id",
        "rigrep",
        "--store",
        path.join(dir, "store.db"),
        "--report",
        reportFile,
      ],
      { env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "test-key" } },
    );
    assert.equal(r.code, 0, r.stderr);
    stdout = r.stdout;
    html = fs.readFileSync(reportFile, "utf8");
    const m = /<section id="rigger">[\s\S]*?<\/section>/.exec(html);
    assert.ok(m, "the report has a rigger section");
    section = m[0];
  });
  after(async () => {
    await context?.close();
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("lists the kept diagnosis (merged into the rule one, evidence linked) and each dropped claim with its reason", () => {
    assert.equal(replies, 1, "one readable reply");
    assert.match(section, /id="rigger-llm"/);
    assert.match(section, /Status <b>ok<\/b>/);
    assert.match(section, /diagnoser both:llm:openai:diag-model/);
    const kept = /<table class="rig-llm-kept">[\s\S]*?<\/table>/.exec(section)?.[0] ?? "";
    const keptRows = kept.split("<tr>").slice(2);
    assert.equal(keptRows.length, 1, kept);
    assert.match(keptRows[0], /<td class="mono">unobserved-claim<\/td><td>observation<\/td>/);
    assert.match(keptRows[0], /merged into the rule diagnosis/);
    assert.match(keptRows[0], /href="#trial=[^"]+"/);
    const dropped = /<table class="rig-llm-dropped">[\s\S]*?<\/table>/.exec(section)?.[0] ?? "";
    const droppedRows = dropped.split("<tr>").slice(2);
    assert.equal(droppedRows.length, 3, dropped);
    assert.ok(
      droppedRows.some((row) => row.includes("not among the given trials") && row.includes("&lt;script&gt;")),
    );
    assert.ok(
      droppedRows.some((row) => row.includes("not among the given trials") && row.includes(JS_TRIAL)),
    );
    assert.ok(droppedRows.some((row) => row.includes("neither a catalogue id") && row.includes(BAD_PATTERN)));
    // the rule diagnosis names both sources; the reply and the prompt are there to audit
    assert.match(section, /<td class="mono">rules \+ llm:openai:diag-model<\/td>/);
    assert.match(section, /<details class="rig-llm-call"><summary>call 1: read/);
    assert.match(section, /<details class="rig-llm-prompt">[\s\S]*## Trial /);
  });

  it("escapes every model-written string: no script, image or javascript: link, and the table holds", () => {
    assert.ok(!/<script|<img|onerror="/i.test(section), "no markup of the model's");
    assert.ok(
      section.includes("&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;"),
      "the summary is escaped text",
    );
    const hrefs = [...section.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    assert.ok(hrefs.length > 0);
    for (const h of hrefs) assert.match(h, /^#trial=[^:]*$/, `only trajectory links: ${h}`);
    for (const tag of ["td", "tr", "table", "details", "pre"]) {
      const open = section.match(new RegExp(`<${tag}[ >]`, "g"))?.length ?? 0;
      const close = section.match(new RegExp(`</${tag}>`, "g"))?.length ?? 0;
      assert.equal(open, close, `<${tag}> balanced`);
    }
  });

  it("prints the kept and dropped claims with terminal escapes neutralised", () => {
    assert.match(stdout, /^llm diagnosis llm:openai:diag-model: ok; 1 kept, 3 dropped$/m);
    assert.match(stdout, /^ {2}kept unobserved-claim \[observation\] .*evidence \S+@\d+\/\d+/m);
    assert.match(stdout, /^ {2}dropped javascript:alert\(1\): pattern "javascript:alert\(1\)" is neither/m);
    assert.match(
      stdout,
      /^diagnosis unobserved-claim \[observation\] .*\(from rules \+ llm:openai:diag-model\)$/m,
    );
    assert.ok(!stdout.includes("\u001b"), "no raw escape character reaches the terminal");
    assert.ok(stdout.includes("\\u001b[2J"));
  });

  it("in chromium the hostile strings are text: nothing runs, the cells read back the model's words", {
    skip: SKIP_BROWSER,
  }, async () => {
    requireChromium();
    context = await launch(dir);
    const { page, errors, foreign } = await watchedPage(context, reportFile);
    const dialogs: string[] = [];
    page.on("dialog", async (d) => {
      dialogs.push(d.message());
      await d.dismiss();
    });
    await page.goto(`file://${reportFile}`);
    await page.waitForSelector("body[data-ready='1']", { timeout: 60_000 });
    assert.equal(await page.evaluate("typeof globalThis.__pwned"), "undefined", "no model string ran");
    assert.deepEqual(dialogs, []);
    assert.deepEqual(errors, []);
    assert.deepEqual(foreign, []);
    const hrefs = await page.locator("#rigger a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    assert.ok(hrefs.length > 0);
    for (const h of hrefs) assert.match(h ?? "", /^#trial=[^:]*$/, `only trajectory links: ${h}`);
    assert.equal(await page.locator("#rigger script").count(), 0);
    assert.equal(await page.locator("#rigger img").count(), 0);
    assert.equal(await page.locator("#rigger .rig-llm-kept tbody tr").count(), 1);
    assert.equal(await page.locator("#rigger .rig-llm-kept tbody tr:first-child td").count(), 6);
    const summary = await page.locator("#rigger .rig-llm-kept tbody tr td:nth-child(4)").textContent();
    assert.equal(summary, HOSTILE.trim());
    const droppedText = await page.locator("#rigger .rig-llm-dropped").textContent();
    assert.ok(droppedText?.includes(BAD_TRIAL) && droppedText.includes(JS_TRIAL), droppedText ?? "");
  });
});

describe("riggerSection without a readable LLM diagnosis", () => {
  const base: RigResult = {
    schemaVersion: 1,
    id: "r",
    world: WORLD,
    designer: "template",
    band: [0.4, 0.6],
    baseline: { experiment: "r-baseline", trials: 4, passed: 2 },
    diagnoser: "llm:openai:m",
    diagnoses: [
      {
        pattern: "unobserved-claim",
        axis: "observation",
        families: ["f"],
        difficulties: [1],
        violations: [],
        evidence: [{ trialId: "t1", steps: [2] }],
      },
    ],
    candidates: [],
    accepted: [],
    rollouts: { baseline: 4, validation: 0, total: 4, perPattern: {} },
  };
  const failedCall: LlmDiagnosisRecord = {
    schemaVersion: 1,
    diagnoser: "llm:openai:m",
    status: "failed",
    error: `the reply could not be read: ${HOSTILE}`,
    prompt: { system: "s", user: "u" },
    calls: [{ round: 0, reply: HOSTILE, problems: ["no JSON"], tokens: { input: 3, output: 4 } }],
    trials: ["t1"],
    diagnoses: [],
    dropped: [],
  };

  it("a failed diagnosis shows its error and reply as text, and says the rule diagnoses were used", () => {
    const html = riggerSection({ ...base, llmDiagnosis: failedCall });
    assert.match(html, /Status <b>failed<\/b>: the reply could not be read: &lt;\/td&gt;/);
    assert.match(html, /The rule diagnoses were used instead/);
    assert.match(html, /call 1: unreadable: no JSON/);
    assert.ok(!/<script|<img/.test(html));
    assert.match(html, /<td class="mono">rules<\/td><\/tr>/, "the rule diagnosis is marked as the rules'");
  });

  it("without an LLM diagnosis the section has no LLM part", () => {
    assert.ok(!riggerSection({ ...base, diagnoser: "rules" }).includes("rigger-llm"));
  });

  it("a kept diagnosis is `used` alone, `added` beside the rule ones, or `not used`", () => {
    const kept = { ...base.diagnoses[0], facts: { diagnosers: ["llm:openai:m"] } };
    assert.equal(llmDiagnosisUse({ ...base, diagnoses: [kept] }, kept, "llm:openai:m"), "used");
    assert.equal(
      llmDiagnosisUse({ ...base, diagnoser: "both:llm:openai:m", diagnoses: [kept] }, kept, "llm:openai:m"),
      "added to the rule diagnoses",
    );
    assert.equal(llmDiagnosisUse(base, kept, "llm:openai:m"), "not used");
  });
});
