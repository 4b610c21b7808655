import { errorTextSource, SEEDED_RANDOM_SOURCE, virtualClockSource } from "./prelude-fragments.ts";

/**
 * The JavaScript that runs inside each isolate before any workspace code: a CommonJS-style module
 * loader over the workspace files (relative paths only), a tiny test runner (`test`, `assert`),
 * virtual timers (`setTimeout` queued, `runTimers()` drains them in time order), a fixed `Date` and a
 * seeded `Math.random`, and traps on host globals (`process`, `require`, `fetch`, ...) that record
 * the attempt and throw as if the global did not exist. Intrinsics are frozen and the runner's own
 * helpers are captured first, so workspace code cannot rewrite how results are counted.
 *
 * It is a plain string (not a function's `toString()`), so no transpiler helper leaks into it. The
 * host wraps it in a function of `INPUT` (the request, out of the workspace code's reach: code made
 * by `new Function` sees only globals) and reads back the string the script evaluates to.
 */
/** The global whose getter gives the harness's result once it is done (the host reads it after a late throw). */
export const RESULT_GLOBAL = "__provingSandboxResult";

export const HARNESS_SOURCE = String.raw`
(function () {
  "use strict";
  const stringify = JSON.stringify;
  const hasOwn = Object.prototype.hasOwnProperty;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const FunctionCtor = Function;
  const results = [];
  const escapes = [];
  const MAX_ESCAPES = 50;
  const note = (kind, detail) => {
    if (escapes.length < MAX_ESCAPES) escapes[escapes.length] = { kind: kind, detail: String(detail).slice(0, 200) };
  };
${errorTextSource(300)}

  // the results, also for the host when the engine throws after the script ended (a rejected import())
  let finished = "";
  defineProperty(globalThis, "${RESULT_GLOBAL}", { get: () => finished, configurable: false, enumerable: false });

  // no stack frames: workspace code cannot tell from a stack which test (visible, hidden, the
  // verifier's) calls it; Error is frozen below, so the limit stays
  Error.stackTraceLimit = 0;

  // ---- host globals: a trap records the attempt, then behaves as if the name did not exist
  const HOST = ["process", "require", "module", "exports", "fetch", "XMLHttpRequest", "WebSocket", "Buffer",
    "__dirname", "__filename", "Deno", "Bun", "importScripts", "setImmediate", "setInterval", "global"];
  for (const name of HOST) {
    defineProperty(globalThis, name, {
      configurable: false,
      enumerable: false,
      get() {
        note("global", name);
        throw new ReferenceError(name + " is not defined");
      },
      set(_v) {
        note("global", name);
        throw new ReferenceError(name + " is not defined");
      },
    });
  }

  // ---- virtual time: a fixed clock, seeded randomness, queued timers
  let now = 0;
  let timerSeq = 0;
  let timers = [];
${virtualClockSource("now")}
${SEEDED_RANDOM_SOURCE}
  const setTimeoutV = function setTimeout(fn, ms) {
    if (typeof fn !== "function") throw new TypeError("setTimeout: the callback must be a function");
    const delay = Number(ms) > 0 ? Number(ms) : 0;
    const id = ++timerSeq;
    timers[timers.length] = { id: id, due: now + delay, fn: fn };
    return id;
  };
  const clearTimeoutV = function clearTimeout(id) {
    timers = timers.filter((t) => t.id !== id);
  };
  const runTimers = function runTimers() {
    let fired = 0;
    while (timers.length > 0) {
      if (++fired > 10000) throw new Error("runTimers: more than 10000 timers");
      let next = 0;
      for (let i = 1; i < timers.length; i++) {
        const a = timers[i];
        const b = timers[next];
        if (a.due < b.due || (a.due === b.due && a.id < b.id)) next = i;
      }
      const t = timers[next];
      timers = timers.filter((x) => x !== t);
      if (t.due > now) now = t.due;
      t.fn();
    }
  };

  // ---- assert
  const same = (a, b) => {
    if (Object.is(a, b)) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (const k of ka) if (!hasOwn.call(b, k) || !same(a[k], b[k])) return false;
    return true;
  };
  const show = (v) => {
    try {
      const s = stringify(v);
      return s === undefined ? String(v) : s.slice(0, 120);
    } catch (_) {
      return String(v).slice(0, 120);
    }
  };
  class AssertionError extends Error {}
  const fail = (message, fallback) => {
    throw new AssertionError(message === undefined ? fallback : String(message));
  };
  const assert = function assert(value, message) {
    if (!value) fail(message, "expected a truthy value, got " + show(value));
  };
  assert.ok = assert;
  assert.equal = (actual, expected, message) => {
    if (!Object.is(actual, expected)) fail(message, "expected " + show(expected) + ", got " + show(actual));
  };
  assert.notEqual = (actual, expected, message) => {
    if (Object.is(actual, expected)) fail(message, "expected something other than " + show(expected));
  };
  assert.deepEqual = (actual, expected, message) => {
    if (!same(actual, expected)) fail(message, "expected " + show(expected) + ", got " + show(actual));
  };
  assert.throws = (fn, message) => {
    let threw = false;
    try {
      fn();
    } catch (_) {
      threw = true;
    }
    if (!threw) fail(message, "expected the function to throw");
  };
  freeze(assert);

  // ---- modules: CommonJS over the workspace files, relative paths only
  const files = INPUT.files;
  const cache = Object.create(null);
  const dirOf = (p) => (p.lastIndexOf("/") >= 0 ? p.slice(0, p.lastIndexOf("/")) : "");
  const normalize = (base, spec) => {
    const parts = (base === "" ? [] : base.split("/"));
    for (const seg of spec.split("/")) {
      if (seg === "" || seg === ".") continue;
      if (seg === "..") {
        if (parts.length === 0) return undefined;
        parts.pop();
      } else parts[parts.length] = seg;
    }
    return parts.join("/");
  };
  // import is the engine's to refuse, not a text match's: an import statement or import.meta does not
  // compile outside a module (a SyntaxError naming it, recorded here); a dynamic import() compiles,
  // and the engine rejects it ("Not supported", which the host records)
  const compile = (path, params, source) => {
    try {
      return FunctionCtor.apply(null, params.concat(['"use strict";\n' + source]));
    } catch (e) {
      if (e instanceof SyntaxError && /\bimport\b/.test(e.message)) note("import", path + ": " + e.message);
      throw e;
    }
  };
  const load = (path) => {
    if (cache[path]) return cache[path].exports;
    const source = files[path];
    const module = { exports: {} };
    cache[path] = module;
    const fn = compile(path, ["module", "exports", "require", "setTimeout", "clearTimeout", "runTimers",
      "test", "assert"], source);
    fn(module, module.exports, requireFrom(dirOf(path)), setTimeoutV, clearTimeoutV, runTimers, testFn, assert);
    return module.exports;
  };
  const requireFrom = (dir) => function require(spec) {
    spec = String(spec);
    if (!spec.startsWith("./") && !spec.startsWith("../")) {
      note("require", spec);
      throw new Error("Cannot find module '" + spec.slice(0, 80) + "' (only workspace files can be required)");
    }
    const path = normalize(dir, spec);
    if (path === undefined) {
      note("require", spec);
      throw new Error("Cannot find module '" + spec.slice(0, 80) + "' (outside the workspace)");
    }
    for (const candidate of [path, path + ".js", path + "/index.js"]) {
      if (hasOwn.call(files, candidate) && candidate.endsWith(".js")) return load(candidate);
    }
    throw new Error("Cannot find module '" + spec.slice(0, 80) + "'");
  };

  // ---- tests
  let currentFile = "";
  let declared = 0;
  const testFn = function test(name, fn) {
    if (++declared > 500) throw new Error("more than 500 tests");
    const entry = { file: currentFile, name: String(name).slice(0, 120), passed: false };
    try {
      timers = [];
      now = 0;
      fn();
      runTimers();
      entry.passed = true;
    } catch (e) {
      entry.error = text(e);
    }
    results[results.length] = entry;
  };

  globalThis.Date = VirtualDate;
  defineProperty(globalThis, "setTimeout", { value: setTimeoutV, writable: false, configurable: false });
  defineProperty(globalThis, "clearTimeout", { value: clearTimeoutV, writable: false, configurable: false });
  defineProperty(globalThis, "runTimers", { value: runTimers, writable: false, configurable: false });
  defineProperty(globalThis, "test", { value: testFn, writable: false, configurable: false });
  defineProperty(globalThis, "assert", { value: assert, writable: false, configurable: false });
  for (const o of [Object, Object.prototype, Array, Array.prototype, Function.prototype, String.prototype,
    Number.prototype, Boolean.prototype, Error, Error.prototype, JSON, Math, Promise, Promise.prototype,
    RegExp.prototype, Map.prototype, Set.prototype, Symbol, VirtualDate, VirtualDate.prototype]) freeze(o);

  for (const t of INPUT.tests) {
    currentFile = t.path;
    const before = results.length;
    try {
      const fn = compile(t.path, ["require", "setTimeout", "clearTimeout", "runTimers", "test", "assert"],
        t.source);
      fn(requireFrom(dirOf(t.path)), setTimeoutV, clearTimeoutV, runTimers, testFn, assert);
    } catch (e) {
      results[results.length] = { file: t.path, name: "(loading the file)", passed: false, error: text(e) };
    }
    if (results.length === before) results[results.length] = { file: t.path, name: "(no tests)", passed: false, error: "the file declares no test" };
  }
  finished = stringify({ tests: results, escapes: escapes });
  return finished;
})()
`;
