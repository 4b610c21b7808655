import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { openStore } from "../../src/store/index.ts";
import { metrics, tempDir } from "./fixtures.ts";

const run = promisify(execFile);
const BIN = path.resolve("bin/proving.mjs");

let dir: string;
const db = () => path.join(dir, "store", "proving.db");

async function proving(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      cwd: dir,
      env: { ...process.env, PROVING_STORE: "" },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

const small = ["--family", "denied", "--family", "lost-reply", "--difficulty", "1", "--no-progress"];

before(() => {
  dir = tempDir("cli");
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("proving run writes the HTML report", () => {
  test("by default, beside the store, and prints the path", async () => {
    const r = await proving("run", "--store", db(), "--id", "default-report", ...small);
    assert.equal(r.code, 0, r.stderr);
    const file = path.join(dir, "store", "reports", "default-report.html");
    assert.ok(r.stdout.includes(`HTML report: ${file}`), r.stdout);
    const html = fs.readFileSync(file, "utf8");
    assert.equal(Number(metrics(html).planned), 20);
  });

  test("--report PATH with --json keeps stdout one JSON document and prints the path on stderr", async () => {
    const out = path.join(dir, "custom", "r.html");
    const r = await proving(
      "run",
      "--store",
      db(),
      "--id",
      "custom-report",
      "--json",
      "--report",
      out,
      ...small,
    );
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.planned, 20);
    assert.ok(r.stderr.includes(`HTML report: ${out}`), r.stderr);
    assert.ok(fs.existsSync(out));
  });

  test("--no-report writes nothing", async () => {
    const r = await proving("run", "--store", db(), "--id", "no-report", "--no-report", ...small);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.includes("HTML report"));
    assert.ok(!fs.existsSync(path.join(dir, "store", "reports", "no-report.html")));
  });
});

describe("proving report", () => {
  test("--json gives the normative document, equal to the store", async () => {
    const r = await proving("report", "default-report", "--store", db(), "--json");
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    const store = await openStore(db());
    try {
      const trials = await store.listTrials("default-report");
      const passed = trials.filter((t) => t.outcome === "passed").length;
      assert.equal(doc.experiment, "default-report");
      assert.equal(doc.planned, 20);
      assert.equal(doc.ran, trials.length);
      assert.equal(doc.outcomes.passed, passed);
      assert.equal(doc.outcomes.missing, 0);
      assert.equal(doc.pass_rate.estimate, passed / 20);
      assert.equal(doc.pass_rate.ci.length, 2);
      assert.ok(
        doc.pass_rate.ci[0] <= doc.pass_rate.estimate && doc.pass_rate.estimate <= doc.pass_rate.ci[1],
      );
      const codes: Record<string, number> = {};
      for (const t of trials) for (const c of new Set(t.violations)) codes[c] = (codes[c] ?? 0) + 1;
      assert.deepEqual(doc.violations, codes);
      assert.ok(doc.by_agent.cautious);
    } finally {
      await store.close();
    }
  });

  test("defaults to the newest experiment and prints the terminal report", async () => {
    const r = await proving("report", "--store", db());
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Experiment no-report/);
    assert.match(r.stdout, /pass rate \(passed \/ planned\)/);
  });

  test("--html with --compare writes the comparison; --json carries it", async () => {
    const out = path.join(dir, "cmp.html");
    const r = await proving(
      "report",
      "default-report",
      "--compare",
      "no-report",
      "--html",
      out,
      "--json",
      "--store",
      db(),
    );
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.comparison.pairs, 20);
    assert.equal(doc.comparison.difference.estimate, 0, "same agents, same tasks, deterministic");
    assert.deepEqual(doc.comparison.problems, []);
    assert.equal(doc.comparison.a.id, "default-report");
    assert.equal(doc.html.path, out);
    assert.match(fs.readFileSync(out, "utf8"), /<section id="comparison">/);
  });

  test("an unknown experiment or a missing store is a config error (exit 2)", async () => {
    assert.equal((await proving("report", "nope", "--store", db())).code, 2);
    assert.equal((await proving("report", "--store", path.join(dir, "none.db"))).code, 2);
  });
});
