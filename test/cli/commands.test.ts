/**
 * The other CLI commands end to end: `selftest --json`, `worlds --json`, `tasks --json`, and the
 * round trip run → `show <trial-id>` → `export` (JSONL, one line per trial) through one store.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { parseJson, runCli } from "../support/cli.ts";

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-cli-"));
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const FAMILIES = [
  "approved-replacement",
  "needs-approval",
  "denied",
  "lost-reply",
  "timeout-before-commit",
  "delayed-receipt",
  "approval-revised",
  "unverifiable",
];
const TOOLS = [
  "get_case",
  "check_warranty",
  "request_approval",
  "get_approval",
  "create_replacement",
  "find_replacements",
  "wait",
  "send_message",
  "escalate",
  "close_case",
];
const POLICIES = ["cautious", "claims-success", "new-key-retry", "skip-approval", "escalate-always"];

function oneLineError(r: { code: number; stderr: string }, pattern: RegExp): void {
  assert.notEqual(r.code, 0);
  const lines = r.stderr.split("\n").filter(Boolean);
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /^proving: error: /);
  assert.match(lines[0], pattern);
}

describe("proving commands", { concurrency: 3 }, () => {
  test("selftest --json: exit 0, per-policy per-family counts, the promises hold", async () => {
    const r = await runCli(["selftest", "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const doc = parseJson<{
      ok: boolean;
      policies: Record<
        string,
        Record<string, { trials: number; passed: number; violations: Record<string, number> }>
      >;
    }>(r);
    assert.equal(doc.ok, true);
    for (const [policy, families] of Object.entries(doc.policies)) {
      assert.ok(Object.keys(families).length > 0, policy);
      for (const [family, cell] of Object.entries(families)) {
        assert.ok(Number.isInteger(cell.trials) && cell.trials > 0, `${policy}/${family}`);
        assert.ok(cell.passed >= 0 && cell.passed <= cell.trials);
        for (const count of Object.values(cell.violations)) assert.ok(count > 0 && count <= cell.trials);
      }
    }
    // with several worlds registered, families are listed as `WORLD/FAMILY`
    const cell = (policy: string, family: string) => {
      const byFamily = doc.policies[policy];
      assert.ok(byFamily, `policy ${policy} is listed`);
      const c = byFamily[family] ?? byFamily[`device-support@1/${family}`];
      assert.ok(c, `${policy} × ${family} is listed`);
      return c;
    };
    for (const policy of POLICIES) for (const family of FAMILIES) cell(policy, family);
    for (const family of FAMILIES) {
      const c = cell("cautious", family);
      assert.equal(c.passed, c.trials, `cautious passes ${family}`);
      assert.deepEqual(c.violations, {});
    }
    const codes = (policy: string, family: string) => Object.keys(cell(policy, family).violations);
    assert.ok(codes("new-key-retry", "lost-reply").includes("duplicate_write"));
    assert.ok(codes("skip-approval", "needs-approval").includes("unauthorized_write_attempt"));
    assert.ok(
      codes("claims-success", "unverifiable").some((c) => c === "unsupported_claim" || c === "false_claim"),
    );
    assert.equal(cell("escalate-always", "approved-replacement").passed, 0);
  });

  test("worlds --json: device-support@1 with its families, the ten tools and the policies", async () => {
    const r = await runCli(["worlds", "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const doc = parseJson<{
      worlds: {
        id: string;
        verifier: string;
        families: { name: string; difficulties: number[] }[];
        tools: { name: string; description: string; input_schema: { type: string } }[];
        policies: string[];
        knownGood: string;
      }[];
    }>(r);
    const w = doc.worlds.find((x) => x.id === "device-support@1");
    assert.ok(w, "device-support@1 is listed");
    assert.equal(w.verifier, "verify.device-support@1");
    assert.deepEqual(
      w.families.map((f) => f.name),
      FAMILIES,
    );
    for (const f of w.families) assert.deepEqual(f.difficulties, [1, 2, 3, 4, 5]);
    assert.deepEqual(
      w.tools.map((t) => t.name),
      TOOLS,
    );
    for (const t of w.tools) assert.equal(t.input_schema.type, "object");
    assert.deepEqual([...w.policies].sort(), [...POLICIES].sort());
    assert.equal(w.knownGood, "cautious");
  });

  test("tasks --world device-support --json: every family × difficulty, deterministic, params hidden", async () => {
    const [a, b] = await Promise.all([
      // the bare name is the newest version (device-support@2); this test is about @1's families
      runCli(["tasks", "--world", "device-support@1", "--json"]),
      runCli(["tasks", "--world", "device-support@1", "--json"]),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.stdout, b.stdout, "the same tasks every time");
    const doc = parseJson<{
      world: string;
      tasks: {
        id: string;
        family: string;
        difficulty: number;
        seed: number;
        instruction: string;
        params?: unknown;
      }[];
    }>(a);
    assert.equal(doc.world, "device-support@1");
    assert.equal(doc.tasks.length, FAMILIES.length * 5);
    assert.equal(new Set(doc.tasks.map((t) => t.id)).size, doc.tasks.length);
    for (const t of doc.tasks) {
      assert.ok(FAMILIES.includes(t.family));
      assert.ok(t.difficulty >= 1 && t.difficulty <= 5);
      assert.match(t.instruction, /C-\d+/, "the instruction names the case");
      assert.equal(t.params, undefined, "hidden parameters are not shown without --params");
    }
    const withParams = await runCli([
      "tasks",
      "--world",
      "device-support@1",
      "--family",
      "lost-reply",
      "--difficulty",
      "2",
      "--count",
      "3",
      "--params",
      "--json",
    ]);
    const p = parseJson<{ tasks: { seed: number; params: { case_id: string } }[] }>(withParams);
    assert.deepEqual(
      p.tasks.map((t) => t.seed),
      [0, 1, 2],
    );
    for (const t of p.tasks) assert.match(t.params.case_id, /^C-\d+$/);
    oneLineError(await runCli(["tasks", "--world", "nope", "--json"]), /unknown world "nope"/);
  });

  test("run → show <trial-id> → export: the records round-trip", async () => {
    const storeFile = path.join(dir, "roundtrip", "proving.db");
    const run = await runCli([
      "run",
      "--agent",
      "cautious",
      "--agent",
      "claims-success",
      "--family",
      "lost-reply",
      "--family",
      "needs-approval",
      "--difficulty",
      "2",
      "--trials",
      "3",
      "--json",
      "--no-progress",
      "--store",
      storeFile,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const doc = parseJson<{
      experiment: { id: string };
      trials: { id: string; outcome: string; steps: number; violations: string[] }[];
    }>(run);
    assert.equal(doc.trials.length, 2 * 2 * 3);

    const one = doc.trials.find((t) => t.violations.length > 0) ?? doc.trials[0];
    const shown = await runCli(["show", one.id, "--json", "--store", storeFile]);
    assert.equal(shown.code, 0, shown.stderr);
    const record = parseJson<TrialRecord>(shown);
    assert.equal(record.schemaVersion, 1);
    assert.equal(record.spec.id, one.id);
    assert.equal(record.outcome, one.outcome);
    assert.equal(record.steps.length, one.steps);
    assert.deepEqual(
      record.verdict?.violations.map((v) => v.code),
      one.violations,
    );
    const text = await runCli(["show", one.id, "--store", storeFile]);
    assert.equal(text.code, 0, text.stderr);
    assert.ok(text.stdout.includes(one.id), "the text trajectory names the trial");
    for (const step of record.steps) assert.ok(text.stdout.includes(step.action.tool));

    const exported = await runCli(["export", "--store", storeFile]);
    assert.equal(exported.code, 0, exported.stderr);
    const lines = exported.stdout.split("\n").filter(Boolean);
    assert.equal(lines.length, doc.trials.length, "one JSONL line per trial");
    const records = lines.map((l) => JSON.parse(l) as TrialRecord);
    assert.deepEqual(records.map((x) => x.spec.id).sort(), doc.trials.map((t) => t.id).sort());
    assert.deepStrictEqual(
      records.find((x) => x.spec.id === one.id),
      record,
      "export and show give the same record",
    );
    for (const x of records) {
      assert.equal(x.schemaVersion, 1);
      assert.equal(x.spec.experimentId, doc.experiment.id);
      assert.equal(x.steps.length, x.stats.steps);
    }

    const outFile = path.join(dir, "export.jsonl");
    const toFile = await runCli([
      "export",
      doc.experiment.id,
      "--out",
      outFile,
      "--outcome",
      "passed",
      "--store",
      storeFile,
    ]);
    assert.equal(toFile.code, 0, toFile.stderr);
    const passedLines = fs.readFileSync(outFile, "utf8").split("\n").filter(Boolean);
    assert.equal(passedLines.length, doc.trials.filter((t) => t.outcome === "passed").length);

    oneLineError(await runCli(["show", "t-no-such-trial", "--store", storeFile]), /no trial t-no-such-trial/);
    oneLineError(await runCli(["export", "no-such-exp", "--store", storeFile]), /no-such-exp/);
  });

  test("show and export without a store → a one-line error, no store created", async () => {
    const missing = path.join(dir, "nothing-here", "proving.db");
    oneLineError(await runCli(["show", "t-1", "--store", missing]), /no store/);
    oneLineError(await runCli(["export", "--store", missing]), /no store/);
    assert.equal(fs.existsSync(missing), false);
  });
});
