/**
 * The isolated-vm sandbox: limits hold (an endless loop, a heap bomb), the host goes on, nothing a
 * run does reaches the next one, and every reach for the host is recorded.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isolateSandbox } from "../../src/sandbox/index.ts";

const sandbox = isolateSandbox({ timeoutMs: 300, memoryMb: 16 });
const TEST = {
  path: "test/a.test.js",
  source: 'const m = require("../src/a.js");\ntest("uses a", () => { assert.ok(m !== undefined); });\n',
};
const runSource = (src: string) => sandbox.run({ files: { "src/a.js": src }, tests: [TEST] });

describe("isolate sandbox", () => {
  test("runs tests and reports each result", () => {
    const run = sandbox.run({
      files: { "src/add.js": "module.exports.add = (a, b) => a + b;" },
      tests: [
        {
          path: "test/add.test.js",
          source:
            'const { add } = require("../src/add.js");\ntest("adds", () => assert.equal(add(1, 2), 3));\ntest("wrong", () => assert.equal(add(1, 2), 4));\n',
        },
      ],
    });
    assert.equal(run.status, "ok");
    assert.deepEqual(
      run.tests.map((t) => [t.name, t.passed]),
      [
        ["adds", true],
        ["wrong", false],
      ],
    );
    assert.match(run.tests[1].error ?? "", /expected 4, got 3/);
    assert.deepEqual(run.escapes, []);
  });

  test("an endless loop is stopped by the time limit; the host and the next run go on", () => {
    const run = runSource("while (true) {}");
    assert.equal(run.status, "timeout");
    assert.equal(run.escapes[0].kind, "timeout");
    assert.equal(runSource("module.exports = 1;").status, "ok");
  });

  test("a heap bomb is stopped by the memory limit; the host and the next run go on", () => {
    const run = runSource("const xs = []; for (;;) xs.push(new Array(1e6).fill(7));");
    assert.equal(run.status, "memory_limit");
    assert.equal(run.escapes[0].kind, "memory_limit");
    const again = runSource("module.exports = 1;");
    assert.equal(again.status, "ok");
    assert.equal(again.tests[0].passed, true);
  });

  test("nothing one run leaves behind is visible to the next", () => {
    runSource("globalThis.leaked = 42; module.exports = 1;");
    const run = sandbox.run({
      files: {},
      tests: [
        {
          path: "test/b.test.js",
          source: 'test("clean", () => assert.equal(typeof globalThis.leaked, "undefined"));',
        },
      ],
    });
    assert.equal(run.tests[0].passed, true);
  });

  test("host globals, modules outside the workspace and import are recorded as escapes", () => {
    const cases: [string, string][] = [
      ["process.exit(1);", "global"],
      ['require("fs").readFileSync("/etc/passwd");', "require"],
      ['require("node:child_process");', "require"],
      ['require("../../outside.js");', "require"],
      ['fetch("http://127.0.0.1/");', "global"],
      ['globalThis.constructor.constructor("return process")();', "global"],
      ['import("fs");', "import"],
    ];
    for (const [src, kind] of cases) {
      const run = runSource(`try { ${src} } catch (_) {}\nmodule.exports = 1;`);
      assert.equal(run.status, "ok", src);
      assert.ok(
        run.escapes.some((e) => e.kind === kind),
        `${src}: ${JSON.stringify(run.escapes)}`,
      );
    }
  });

  test("workspace code cannot tell which test calls it: no stack frames, no file names, no request (issue 27)", () => {
    const probe =
      'module.exports = () => [String(new Error("where").stack), typeof INPUT, (() => { const o = {}; Error.captureStackTrace(o); return String(o.stack); })()];\n';
    const check =
      'const where = require("../src/a.js");\ntest("sees nothing", () => assert.deepEqual(where(), ["Error: where", "undefined", "Error"]));\n';
    const run = sandbox.run({
      files: { "src/a.js": probe },
      tests: [
        { path: "test/a.test.js", source: check },
        { path: "test/__hidden__.test.js", source: check },
      ],
    });
    assert.deepEqual(
      run.tests.map((t) => [t.passed, t.error]),
      [
        [true, undefined],
        [true, undefined],
      ],
    );
    const limit = runSource(
      'try { Error.stackTraceLimit = 10; } catch (_) {}\nmodule.exports = String(new Error("x").stack);',
    );
    assert.equal(limit.tests[0].passed, true);
  });

  test("import is the engine's to refuse: import( in a comment or a string loads; a statement and a call are recorded (issue 27)", () => {
    const honest = runSource('// import("fs") is not needed\nconst s = "import(x)";\nmodule.exports = s;');
    assert.equal(honest.tests[0].passed, true, JSON.stringify(honest));
    assert.deepEqual(honest.escapes, []);
    for (const src of ['import fs from "fs";\nmodule.exports = 1;', "module.exports = import.meta;"]) {
      const run = runSource(src);
      assert.equal(run.tests[0].passed, false, src);
      assert.ok(
        run.escapes.some((e) => e.kind === "import"),
        `${src}: ${JSON.stringify(run.escapes)}`,
      );
    }
    const called = runSource('const p = import("fs");\nmodule.exports = 1;');
    assert.equal(called.status, "ok");
    assert.equal(called.tests[0].passed, true);
    assert.ok(
      called.escapes.some((e) => e.kind === "import"),
      JSON.stringify(called.escapes),
    );
  });

  test("workspace code cannot rewrite the test runner or its assertions", () => {
    const run = sandbox.run({
      files: {
        "src/a.js":
          "try { assert.equal = () => {}; } catch (_) {}\ntry { Object.prototype.toJSON = () => 'x'; } catch (_) {}\nmodule.exports = 1;",
      },
      tests: [
        {
          path: "test/a.test.js",
          source: 'require("../src/a.js");\ntest("still judged", () => assert.equal(1, 2));',
        },
      ],
    });
    assert.equal(run.tests.length, 1);
    assert.equal(run.tests[0].passed, false);
  });

  test("virtual time: Date is fixed, Math.random is seeded, timers fire in time order", () => {
    const source =
      'test("time", () => { assert.equal(Date.now(), 0); const order = []; setTimeout(() => order.push(2), 20); setTimeout(() => order.push(1), 10); runTimers(); assert.deepEqual(order, [1, 2]); });\n' +
      'test("random", () => { globalThis.r = Math.random(); assert.ok(r >= 0 && r < 1); });';
    const a = sandbox.run({ files: {}, tests: [{ path: "test/t.test.js", source }] });
    const b = sandbox.run({ files: {}, tests: [{ path: "test/t.test.js", source }] });
    assert.deepEqual(a, b);
    assert.ok(
      a.tests.every((t) => t.passed),
      JSON.stringify(a.tests),
    );
  });

  test("every clock path reads the virtual clock, also after timers advance it (issue 27)", () => {
    const source =
      'test("clock", () => { setTimeout(() => {}, 5000); runTimers();\n' +
      "  const D = Date; const P = Object.getPrototypeOf(D);\n" +
      '  assert.ok(typeof P.now !== "function" || P.now() === 5000);\n' +
      "  assert.equal(new Date().getTime(), 5000); assert.equal(new (class extends D {})().getTime(), 5000);\n" +
      "  assert.equal(new (new Date(1).constructor)().getTime(), 5000);\n" +
      "  assert.equal(D(), new Date(5000).toString());\n" +
      '  assert.equal(new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric" }).format(), "1970"); });';
    const run = sandbox.run({ files: {}, tests: [{ path: "test/t.test.js", source }] });
    assert.ok(run.tests[0]?.passed, JSON.stringify(run.tests));
  });
});
