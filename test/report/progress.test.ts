import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, test } from "node:test";
import { progressReporter } from "../../src/cli/progress.ts";
import type { Progress } from "../../src/runner/run.ts";

function capture() {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on("data", (c) => chunks.push(String(c)));
  return { stream, text: () => chunks.join("") };
}

const at = (done: number, passed: number, violated = 0, errors = 0): Progress => ({
  planned: 10,
  done,
  passed,
  violated,
  errors,
  outcomes: {},
});

describe("live progress (plain lines when not a TTY)", () => {
  test("prints done/planned, pass rate so far, violations, errors and ETA, and the final state once", () => {
    const out = capture();
    const p = progressReporter({ enabled: true, tty: false, stream: out.stream, intervalMs: 60_000 });
    p.update(at(1, 1));
    p.update(at(2, 1, 1));
    p.update(at(10, 7, 2, 1));
    p.stop();
    const lines = out.text().trim().split("\n");
    assert.equal(lines.length, 2, out.text());
    assert.match(lines[0], /^\[proving\] 1\/10 trials, pass 100\.0%, violations 0, errors 0, ETA \S+$/);
    assert.match(lines[1], /^\[proving\] 10\/10 trials, pass 70\.0%, violations 2, errors 1, ETA 0s$/);
    assert.ok(!out.text().includes(`${String.fromCharCode(27)}[`), "no terminal escapes in a log");
  });

  test("the last state is not printed twice", () => {
    const out = capture();
    const shared = at(0, 0);
    const p = progressReporter({ enabled: true, tty: false, stream: out.stream, intervalMs: 0 });
    shared.done = 3;
    shared.passed = 3;
    p.update(shared);
    p.stop();
    assert.equal(out.text().trim().split("\n").length, 1);
  });

  test("disabled: silent", () => {
    const out = capture();
    const p = progressReporter({ enabled: false, stream: out.stream });
    p.update(at(1, 1));
    p.stop();
    assert.equal(out.text(), "");
  });
});
