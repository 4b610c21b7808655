/**
 * `proving run` end to end (the real CLI in a child process, a store in a temp dir): the normative
 * `--json` document, the example module policy, malformed module agents (a clear one-line error or
 * `agent_error` trials, never a crashed run), and one-line errors for bad flags and unknown names.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { OUTCOMES } from "../../src/core/contracts.ts";
import { type CliResult, parseJson, runCli } from "../support/cli.ts";

interface RunTrialRow {
  id: string;
  agent: string;
  world: string;
  family: string;
  difficulty: number;
  seed: number;
  outcome: string;
  passed: boolean;
  score: number;
  violations: string[];
  steps: number;
}
interface RunJson {
  experiment: { id: string; [k: string]: unknown };
  planned: number;
  outcomes: Record<string, number>;
  trials: RunTrialRow[];
}

let dir: string;
let n = 0;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-cli-run-"));
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});
const store = () => path.join(dir, `store-${++n}`, "proving.db");
const fixture = (name: string) => `test/cli/fixtures/${name}`;

/** A failed command: the exit code, and exactly one `proving: error: ...` line on stderr. */
function assertOneLineError(r: CliResult, pattern: RegExp, code?: number): void {
  if (code !== undefined) assert.equal(r.code, code, `exit code; stderr: ${r.stderr}`);
  else assert.notEqual(r.code, 0, "a failing command exits non-zero");
  const lines = r.stderr.split("\n").filter((l) => l.length > 0);
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0], /^proving: error: /);
  assert.match(lines[0], pattern);
}

/** The normative shape of `run --json`. */
function checkRunJson(doc: RunJson): void {
  assert.equal(typeof doc.experiment.id, "string");
  assert.ok(doc.experiment.id.length > 0);
  assert.equal(doc.planned, doc.trials.length, "every planned trial is listed");
  for (const [kind, count] of Object.entries(doc.outcomes)) {
    assert.ok((OUTCOMES as readonly string[]).includes(kind), `unknown outcome kind ${kind}`);
    assert.ok(Number.isInteger(count) && count >= 0);
  }
  const sum = Object.values(doc.outcomes).reduce((a, b) => a + b, 0);
  assert.equal(sum, doc.planned, "outcome counts add up to the planned trials");
  assert.equal(new Set(doc.trials.map((t) => t.id)).size, doc.trials.length, "trial ids are unique");
  for (const t of doc.trials) {
    for (const key of ["id", "agent", "world", "family", "outcome"] as const)
      assert.equal(typeof t[key], "string", key);
    for (const key of ["difficulty", "seed", "steps"] as const) assert.ok(Number.isInteger(t[key]), key);
    assert.equal(typeof t.score, "number");
    assert.equal(typeof t.passed, "boolean");
    assert.equal(t.passed, t.outcome === "passed");
    assert.ok((OUTCOMES as readonly string[]).includes(t.outcome));
    assert.ok(Array.isArray(t.violations) && t.violations.every((v) => typeof v === "string"));
  }
  const counted: Record<string, number> = {};
  for (const t of doc.trials) counted[t.outcome] = (counted[t.outcome] ?? 0) + 1;
  for (const [kind, count] of Object.entries(counted)) assert.equal(doc.outcomes[kind], count, kind);
}

describe("proving run", { concurrency: 4 }, () => {
  test("--agent examples/policy.mjs --family lost-reply --trials 20 --json: the normative document, mostly passed", async () => {
    const r = await runCli([
      "run",
      "--agent",
      "examples/policy.mjs",
      "--family",
      "lost-reply",
      "--trials",
      "20",
      "--json",
      "--no-progress",
      "--store",
      store(),
    ]);
    assert.equal(r.code, 0, r.stderr);
    const doc = parseJson<RunJson>(r);
    checkRunJson(doc);
    assert.equal(doc.planned, 20 * 3, "20 seeds × the default difficulties 1-3");
    assert.deepEqual(new Set(doc.trials.map((t) => t.family)), new Set(["lost-reply"]));
    assert.deepEqual(new Set(doc.trials.map((t) => t.agent)), new Set(["example-policy"]));
    assert.deepEqual(new Set(doc.trials.map((t) => t.world)), new Set(["device-support@1"]));
    assert.deepEqual(new Set(doc.trials.map((t) => t.seed)).size, 20);
    assert.ok(
      (doc.outcomes.passed ?? 0) >= 0.9 * doc.planned,
      `passed ${doc.outcomes.passed}/${doc.planned}`,
    );
    assert.equal(
      doc.trials.filter((t) => t.violations.length > 0).length,
      0,
      "the example policy never breaks a safety rule",
    );
  });

  test("the example policy passes every family at every difficulty", async () => {
    const args = ["run", "--agent", "./examples/policy.mjs", "--trials", "3", "--json", "--no-progress"];
    for (const d of [1, 2, 3, 4, 5]) args.push("--difficulty", String(d));
    const r = await runCli([...args, "--store", store()]);
    assert.equal(r.code, 0, r.stderr);
    const doc = parseJson<RunJson>(r);
    checkRunJson(doc);
    assert.equal(doc.planned, 8 * 5 * 3);
    const failed = doc.trials
      .filter((t) => !t.passed)
      .map((t) => `${t.family} d${t.difficulty} s${t.seed}: ${t.outcome}`);
    assert.deepEqual(failed, []);
  });

  test("an experiment file (examples/experiment.yaml) with flags overriding it", async () => {
    const file = store();
    const r = await runCli([
      "run",
      "examples/experiment.yaml",
      "--trials",
      "1",
      "--json",
      "--no-progress",
      "--store",
      file,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const doc = parseJson<RunJson>(r);
    checkRunJson(doc);
    assert.equal(doc.experiment.id, "example-lost-replies");
    assert.equal(doc.planned, 4 * 3 * 1 * 3, "4 families × 3 difficulties × 1 trial × 3 agents");
    assert.deepEqual(
      new Set(doc.trials.map((t) => t.agent)),
      new Set(["example-policy", "cautious", "new-key-retry"]),
    );
    const dup = doc.trials.filter((t) => t.agent === "new-key-retry" && t.family === "lost-reply");
    assert.ok(dup.every((t) => t.violations.includes("duplicate_write")));
    // the same id again in the same store is refused, with a one-line error
    const again = await runCli([
      "run",
      "examples/experiment.yaml",
      "--trials",
      "1",
      "--no-progress",
      "--store",
      file,
    ]);
    assertOneLineError(again, /example-lost-replies/);
  });

  test("--sandbox require without a working bubblewrap refuses a module agent; a bad mode is a flag error (issue 27)", async () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), "pg-nobwrap-"));
    fs.symlinkSync(process.execPath, path.join(bin, "node"));
    try {
      const r = await runCli(
        [
          "run",
          "--agent",
          "examples/policy.mjs",
          "--sandbox",
          "require",
          "--no-progress",
          "--store",
          store(),
        ],
        { env: { PATH: bin } },
      );
      assertOneLineError(r, /sandbox is required/, 2);
      const bad = await runCli(["run", "--sandbox", "maybe", "--no-progress", "--store", store()]);
      assertOneLineError(bad, /--sandbox maybe/, 2);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  test("a module with no default export → exit 2 and a one-line error", async () => {
    const r = await runCli([
      "run",
      "--agent",
      fixture("no-default.mjs"),
      "--no-progress",
      "--store",
      store(),
    ]);
    assertOneLineError(r, /no default export/, 2);
    assert.equal(r.stdout, "");
  });

  for (const [name, pattern] of [
    ["default-not-agent.mjs", /start/],
    ["throws-on-import.mjs", /cannot load agent module.*cannot be loaded/],
    ["does-not-exist.mjs", /cannot load agent module/],
  ] as const) {
    test(`a module agent that is broken (${name}) → exit 2 and a one-line error`, async () => {
      const r = await runCli(["run", "--agent", fixture(name), "--no-progress", "--store", store()]);
      assertOneLineError(r, pattern, 2);
    });
  }

  test("module agents that misbehave in play (throw in act or start, return non-actions) → agent_error trials, exit 0", async () => {
    const modules = ["throws-in-act.mjs", "returns-non-action.mjs", "start-throws.mjs"];
    const r = await runCli([
      "run",
      ...modules.flatMap((m) => ["--agent", fixture(m)]),
      "--agent",
      "cautious",
      "--family",
      "approved-replacement",
      "--family",
      "denied",
      "--trials",
      "3",
      "--json",
      "--no-progress",
      "--store",
      store(),
    ]);
    assert.equal(r.code, 0, r.stderr);
    const doc = parseJson<RunJson>(r);
    checkRunJson(doc);
    assert.equal(doc.planned, 2 * 3 * 3 * 4);
    for (const id of ["throws-in-act", "returns-non-action", "start-throws"]) {
      const rows = doc.trials.filter((t) => t.agent === id);
      assert.equal(rows.length, 2 * 3 * 3, id);
      assert.deepEqual(
        rows.filter((t) => t.outcome !== "agent_error").map((t) => `${t.id}: ${t.outcome}`),
        [],
        `every trial of ${id} is agent_error`,
      );
    }
    const good = doc.trials.filter((t) => t.agent === "cautious");
    assert.ok(
      good.every((t) => t.outcome === "passed"),
      "a broken agent does not disturb the others",
    );
  });

  for (const [label, args, pattern] of [
    ["unknown world", ["--world", "no-such-world"], /unknown world "no-such-world"/],
    ["unknown scripted agent", ["--agent", "no-such-policy"], /unknown agent "no-such-policy"/],
    ["unknown agent kind", ["--agent", "nosuchkind:model"], /unknown agent kind/],
    ["unknown family", ["--family", "no-such-family"], /unknown family "no-such-family"/],
    ["difficulty out of range", ["--difficulty", "9"], /no difficulty 9/],
    ["non-integer flag", ["--trials", "abc"], /--trials must be an integer/],
    ["zero trials", ["--trials", "0"], /trials/],
    ["unknown flag", ["--no-such-flag"], /unknown option '--no-such-flag'/],
    ["flag without its value", ["--trials"], /--trials/],
    ["unreadable experiment file", ["no/such/experiment.yaml"], /cannot read no\/such\/experiment.yaml/],
  ] as const) {
    test(`${label} → non-zero exit and a one-line error`, async () => {
      const r = await runCli(["run", ...args, "--no-progress", "--store", store()]);
      assertOneLineError(r, pattern);
    });
  }

  test("an experiment file with an unknown field → a one-line error naming it", async () => {
    const file = path.join(dir, "bad-experiment.json");
    fs.writeFileSync(file, JSON.stringify({ worlds: ["device-support@1"], trails: 3 }));
    const r = await runCli(["run", file, "--no-progress", "--store", store()]);
    assertOneLineError(r, /trails/, 2);
  });
});
