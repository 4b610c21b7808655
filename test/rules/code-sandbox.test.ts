/**
 * The generated-rule sandbox: every way generated code can go wrong becomes a failure record (kind,
 * stage, a message for the designer, where in the TypeScript source), the host survives, and the
 * time and memory limits of each hook call hold.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import type { JsonValue } from "../../src/core/json.ts";
import {
  type CompiledRuleCode,
  compileRuleCode,
  isolateRuleSandbox,
  type RuleCodeFailure,
  type RuleCodeResult,
  type RuleHookName,
} from "../../src/rules/index.ts";

/**
 * The production default. The limit is wall-clock: at load ~20 a 150 ms limit stopped 12 of 400
 * calls of a small hook when each got one try (3 tries: 1 of 400; 500 ms and 3 tries: 0 of 400).
 */
const TIMEOUT_MS = 500;
const MEMORY_MB = 16;
const sandbox = isolateRuleSandbox({ timeoutMs: TIMEOUT_MS, memoryMb: MEMORY_MB });
/** For heap bombs: a time limit the memory limit always beats (filling 16 MiB takes ~100 ms here). */
const roomy = isolateRuleSandbox({ timeoutMs: 5000, memoryMb: MEMORY_MB });
after(() => {
  sandbox.dispose();
  roomy.dispose();
});

const action = { tool: "issue_refund", args: { order: "o-1", amount: 5 }, callId: "c1" };
const observation = {
  kind: "tool_result",
  tool: "issue_refund",
  callId: "c1",
  result: { ok: true, refund: "r-1" },
  now: 3,
};
const stepResult = { observation, reward: 0, terminated: false, truncated: false, info: { now: 3 } };
const state = {
  world: { orders: [{ id: "o-1", status: "paid" }] },
  now: 3,
  step: 1,
  params: {},
  history: [
    {
      step: 0,
      t: 0,
      tool: "get_order",
      args: { order: "o-1" },
      result: { ok: true },
      blocked: false,
      fired: false,
    },
  ],
};

function compiled(source: string): CompiledRuleCode {
  const c = compileRuleCode(source);
  assert.ok(c.ok, `compiles: ${c.ok ? "" : c.failure.message}`);
  return c.code;
}

function argsOf(hook: RuleHookName): JsonValue[] {
  if (hook === "filterAction") return [action, state];
  if (hook === "modifyTransition") return [action, stepResult, state];
  return [observation, state];
}

function call(source: string, hook: RuleHookName = "filterAction", sb = sandbox): RuleCodeResult<JsonValue> {
  return sb.call(compiled(source), hook, argsOf(hook));
}

function failureOf(r: RuleCodeResult<unknown>): RuleCodeFailure {
  assert.equal(r.ok, false, `expected a failure, got ${JSON.stringify(r)}`);
  const f = (r as { failure: RuleCodeFailure }).failure;
  assert.equal(f.schemaVersion, 1);
  assert.match(f.sha256, /^[0-9a-f]{64}$/);
  assert.ok(f.message.length > 20, "the message says what to do");
  return f;
}

/** The sandbox still works: a plain hook call returns its value. */
function assertHealthy(): void {
  const r = call(
    `export function filterAction(a: any) { return { ...a, args: { ...a.args, checked: true } }; }`,
  );
  assert.deepEqual(r, { ok: true, value: { ...action, args: { ...action.args, checked: true } } });
}

describe("generated rule code: compile", () => {
  test("a syntax error is a compile_error record pointing at the TypeScript line", () => {
    const c = compileRuleCode("export function filterAction(a: Action) {\n  return a +;\n}\n");
    assert.equal(c.ok, false);
    const f = (c as { failure: RuleCodeFailure }).failure;
    assert.equal(f.kind, "compile_error");
    assert.equal(f.stage, "compile");
    assert.equal(f.location?.line, 2);
    assert.match(f.location?.text ?? "", /return a \+;/);
    assert.match(f.message, /valid TypeScript/);
  });

  test("static import, import() of a literal and require() are refused at compile time (escape)", () => {
    for (const [source, spec] of [
      [`import fs from "node:fs";\nexport function filterAction(a: any) { return fs ? a : a; }`, "node:fs"],
      [
        `export function filterAction(a: any) {\n  void import("child_process");\n  return a;\n}`,
        "child_process",
      ],
      [
        `declare const require: any;\nexport function filterAction(a: any) { require("os"); return a; }`,
        "os",
      ],
    ] as const) {
      const c = compileRuleCode(source);
      assert.equal(c.ok, false, source);
      const f = (c as { failure: RuleCodeFailure }).failure;
      assert.equal(f.kind, "escape");
      assert.equal(f.stage, "compile");
      assert.match(f.message, new RegExp(spec));
      assert.equal(f.escapes?.[0].name, "import");
    }
  });

  test("the same source has the same sha256, another source another", () => {
    const a = compiled("export function filterAction(a: any) { return a; }");
    const b = compiled("export function filterAction(a: any) { return a; }");
    const c = compiled("export function filterAction(b: any) { return b; }");
    assert.equal(a.sha256, b.sha256);
    assert.notEqual(a.sha256, c.sha256);
  });
});

describe("generated rule code: load", () => {
  test("lists exported hooks and directives; a module without hooks or with a bad export is bad_exports", () => {
    const ok = sandbox.load(
      compiled(
        `export const directives = { latency: { seconds: 2 } };\nexport function filterObservation(o: any) { return o; }`,
      ),
    );
    assert.deepEqual(ok, {
      ok: true,
      value: { hooks: ["filterObservation"], directives: { latency: { seconds: 2 } }, extra: [] },
    });
    assert.equal(failureOf(sandbox.load(compiled("export const x = 1;"))).kind, "bad_exports");
    const notFn = failureOf(sandbox.load(compiled("export const filterAction = 3;")));
    assert.equal(notFn.kind, "bad_exports");
    assert.match(notFn.message, /filterAction is a number/);
  });

  test("a top-level throw, loop or escape fails the load with its kind", () => {
    const thrown = failureOf(
      sandbox.load(compiled(`throw new Error("boom");\nexport function filterAction(a: any) { return a; }`)),
    );
    assert.equal(thrown.kind, "throw");
    assert.equal(thrown.stage, "load");
    assert.equal(
      failureOf(sandbox.load(compiled(`while (true) {}\nexport function filterAction(a: any) { return a; }`)))
        .kind,
      "timeout",
    );
    const esc = failureOf(
      sandbox.load(
        compiled(
          `const p = (globalThis as any).process;\nexport function filterAction(a: any) { return a; }`,
        ),
      ),
    );
    assert.equal(esc.kind, "escape");
    assert.equal(esc.stage, "load");
  });
});

describe("generated rule code: hook calls", () => {
  test("an infinite loop is a timeout record within the time limit, and the host goes on", () => {
    const started = Date.now();
    const f = failureOf(call("export function filterAction(a: any) { for (;;) {} }"));
    const elapsed = Date.now() - started;
    assert.equal(f.kind, "timeout");
    assert.equal(f.stage, "filterAction");
    assert.match(f.message, new RegExp(`${TIMEOUT_MS} ms`));
    // the call was stopped (not left to spin): at most 3 tries on a loaded machine, generous bound
    assert.ok(elapsed < 3 * TIMEOUT_MS + 5000, `stopped after ${elapsed} ms`);
    assertHealthy();
  });

  test("a call the wall clock stopped while the process used little CPU (a busy machine) is tried again, 3 tries in all", () => {
    // A CPU meter that reads `used` ms per try: 0 is a call that only waited for a core.
    const meter = (used: number) => {
      let now = 0;
      let reads = 0;
      return {
        reads: () => reads,
        cpuMs: () => {
          reads++;
          if (reads % 2 === 0) now += used;
          return now;
        },
      };
    };
    const spin = "export function filterAction(a: any) { for (;;) {} }";
    const starved = meter(0);
    const sb = isolateRuleSandbox({ timeoutMs: TIMEOUT_MS }, { cpuMs: starved.cpuMs });
    const f = failureOf(call(spin, "filterAction", sb));
    assert.equal(f.kind, "timeout");
    assert.match(f.message, new RegExp(`${TIMEOUT_MS} ms`));
    assert.equal(starved.reads(), 2 * 3, "three tries, each metered");
    // a call that used the CPU the whole limit is the code's doing: one try
    const busy = meter(TIMEOUT_MS);
    const sb2 = isolateRuleSandbox({ timeoutMs: TIMEOUT_MS }, { cpuMs: busy.cpuMs });
    assert.equal(failureOf(call(spin, "filterAction", sb2)).kind, "timeout");
    assert.equal(busy.reads(), 2, "one try");
    // a call inside the limit is one read, whatever the meter says
    const quiet = meter(0);
    const sb3 = isolateRuleSandbox({ timeoutMs: TIMEOUT_MS }, { cpuMs: quiet.cpuMs });
    assert.equal(call("export function filterAction(a: any) { return a; }", "filterAction", sb3).ok, true);
    assert.equal(quiet.reads(), 1);
    for (const s of [sb, sb2, sb3]) s.dispose();
    assertHealthy();
  });

  test("a heap bomb is a memory_limit record; the host's heap is untouched; the next call works", () => {
    const before = process.memoryUsage().heapUsed;
    const f = failureOf(
      call(
        "export function filterAction(a: any) { const xs: number[][] = []; for (let i = 0; ; i++) xs.push(new Array(1e5).fill(i)); }",
        "filterAction",
        roomy,
      ),
    );
    assert.equal(f.kind, "memory_limit");
    assert.match(f.message, new RegExp(`${MEMORY_MB} MiB`));
    const grew = process.memoryUsage().heapUsed - before;
    assert.ok(grew < 64 * 1024 * 1024, `host heap grew by ${grew} bytes`);
    // an ArrayBuffer bomb is counted too
    assert.equal(
      failureOf(
        call(
          "export function filterAction(a: any) { const bs: any[] = []; for (;;) bs.push(new ArrayBuffer(32 << 20)); }",
          "filterAction",
          roomy,
        ),
      ).kind,
      "memory_limit",
    );
    assertHealthy();
  });

  test("the memory limit is the limit: a hook that keeps under it succeeds, one past it fails", () => {
    const alloc = (mb: number) =>
      `export function filterAction(a: any) { const b = new Uint8Array(${mb} * 1024 * 1024); b[0] = 1; return a; }`;
    assert.equal(call(alloc(2), "filterAction", roomy).ok, true);
    // per call: calls that each use most of the limit do not add up
    for (let i = 0; i < 6; i++) assert.equal(call(alloc(6), "filterAction", roomy).ok, true, `call ${i}`);
    assert.equal(failureOf(call(alloc(MEMORY_MB * 4), "filterAction", roomy)).kind, "memory_limit");
  });

  test("process, require, import(), fetch and globalThis tricks are escape records naming what was reached for", () => {
    const cases: [string, string][] = [
      ["export function filterAction(a: any) { return (globalThis as any).process.env; }", "process"],
      [
        "export function filterAction(a: any) { return (globalThis as any)['req' + 'uire']('fs'); }",
        "require",
      ],
      [
        "export function filterAction(a: any) { return new Function('return import(\"node:fs\")')(); }",
        "import",
      ],
      ["export function filterAction(a: any) { return (0, eval)('import(\"fs\")'); }", "import"],
      [
        "export function filterAction(a: any) { return ([] as any).constructor.constructor('return this')().process; }",
        "process",
      ],
      [
        "export function filterAction(a: any) { const F = (async () => {}).constructor as any; F('return process')(); return a; }",
        "process",
      ],
      [
        "export function filterAction(a: any) { (globalThis as any).fetch('http://127.0.0.1:1'); return a; }",
        "fetch",
      ],
      // caught and ignored: still an escape
      [
        "export function filterAction(a: any) { try { (globalThis as any).process.exit(1); } catch {} return a; }",
        "process",
      ],
    ];
    for (const [source, name] of cases) {
      const f = failureOf(call(source));
      assert.equal(f.kind, "escape", source);
      assert.ok(
        f.escapes?.some((e) => e.name === name),
        `${source}: ${JSON.stringify(f.escapes)}`,
      );
      assert.match(f.message, new RegExp(name));
    }
    assertHealthy();
  });

  test("mutating the data passed in is a mutation record in every hook, and the host's data is unchanged", () => {
    const snapshot = JSON.stringify({ action, stepResult, observation, state });
    const cases: [RuleHookName, string][] = [
      ["filterAction", "export function filterAction(a: any) { a.args.amount = 500; return a; }"],
      [
        "filterAction",
        "export function filterAction(a: any, s: any) { s.history.push(s.history[0]); return a; }",
      ],
      ["filterAction", "export function filterAction(a: any, s: any) { delete s.world.orders; return a; }"],
      [
        "modifyTransition",
        "export function modifyTransition(a: any, r: any) { r.observation.result.ok = false; return r; }",
      ],
      ["filterObservation", "export function filterObservation(o: any) { o.now = 0; return o; }"],
    ];
    for (const [hook, source] of cases) {
      const f = failureOf(call(source, hook));
      assert.equal(f.kind, "mutation", source);
      assert.equal(f.stage, hook);
      assert.match(f.message, /frozen/);
      assert.equal(f.location?.line, 1);
    }
    assert.equal(JSON.stringify({ action, stepResult, observation, state }), snapshot);
  });

  test("a throw in each hook is a throw record with the TypeScript line", () => {
    for (const hook of ["filterAction", "modifyTransition", "filterObservation"] as RuleHookName[]) {
      const source = `type X = { deep?: { field: string } };\nexport function ${hook}(x: any) {\n  const v: X = {};\n  return v.deep!.field as any;\n}\n`;
      const f = failureOf(call(source, hook));
      assert.equal(f.kind, "throw", hook);
      assert.equal(f.stage, hook);
      assert.equal(f.location?.line, 4, `${hook}: ${JSON.stringify(f.location)}`);
      assert.match(f.location?.text ?? "", /v\.deep!\.field/);
      assert.match(f.message, /Cannot read properties of undefined/);
    }
  });

  test("undefined, a Promise or a value that is not JSON is bad_return", () => {
    assert.equal(
      failureOf(call("export function filterAction(a: any) { if (a.tool === 'x') return a; }")).kind,
      "bad_return",
    );
    const p = failureOf(call("export async function filterAction(a: any) { return a; }"));
    assert.equal(p.kind, "bad_return");
    assert.match(p.message, /Promise/);
    assert.equal(
      failureOf(call("export function filterAction(a: any) { const o: any = {}; o.self = o; return o; }"))
        .kind,
      "bad_return",
    );
  });

  test("each call starts from a fresh global scope; Date is fixed and Math.random seeded", () => {
    const source = `export function filterAction(a: any) {
  const g = globalThis as any;
  const seen = g.counter ?? 0;
  g.counter = seen + 1;
  return { ...a, args: { seen, now: Date.now(), r: Math.random() } };
}`;
    const one = call(source);
    const two = call(source);
    assert.equal(one.ok, true);
    assert.deepEqual(one, two, "the same inputs give the same output");
    assert.equal((one as unknown as { value: { args: { seen: number } } }).value.args.seen, 0);
    assert.equal((one as unknown as { value: { args: { now: number } } }).value.args.now, 0);
  });

  test("every clock path reads the fixed clock: the native Date behind a subclass, Date(), Intl (issue 27)", () => {
    const source = `export function filterAction(a: any) {
  const D: any = Date;
  const paths: Record<string, unknown> = {
    proto: typeof Object.getPrototypeOf(D).now === "function" ? Object.getPrototypeOf(D).now() : "none",
    ctor: (new Date() as any).constructor.now(),
    ctorNew: new ((new Date(5) as any).constructor)().getTime(),
    sub: new (class extends D {})().getTime(),
    called: D(),
    intl: new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric" }).format(),
    parts: new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric" }).formatToParts()[0].value,
    explicit: new Date(86400000).getTime(),
  };
  return { ...a, args: paths };
}`;
    const one = call(source);
    assert.equal(one.ok, true, JSON.stringify(one));
    const args = (one as unknown as { value: { args: Record<string, unknown> } }).value.args;
    assert.ok(args.proto === "none" || args.proto === 0, `prototype path: ${args.proto}`);
    assert.equal(args.ctor, 0);
    assert.equal(args.ctorNew, 0);
    assert.equal(args.sub, 0);
    assert.equal(args.called, new Date(0).toString());
    assert.equal(args.intl, "1970");
    assert.equal(args.parts, "1970");
    assert.equal(args.explicit, 86400000, "a date with an argument is that date");
  });

  test("a generated rule sees only copies: what it returns is new data, and the sandbox keeps no host object", () => {
    const r = call(
      "export function filterAction(a: any, s: any) { return { ...a, args: { world: s.world } }; }",
    );
    assert.equal(r.ok, true);
    const value = (r as unknown as { value: { args: { world: unknown } } }).value;
    assert.deepEqual(value.args.world, state.world);
    assert.notEqual(value.args.world, state.world);
  });
});
