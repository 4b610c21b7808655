import { errorTextSource, SEEDED_RANDOM_SOURCE, virtualClockSource } from "../sandbox/prelude-fragments.ts";

/**
 * The JavaScript that runs in each fresh context of a generated rule's isolate, before the rule's
 * code: traps on host globals (`process`, `require`, `fetch`, ...) that record the attempt and throw
 * as if the name did not exist, no `WebAssembly`/`SharedArrayBuffer`/`Atomics`, a fixed `Date` and a
 * seeded `Math.random` (hooks are pure: the same inputs give the same outputs), the helpers the rule
 * API offers (`blocked`, `matchesTool`), and frozen intrinsics. It defines two hidden functions:
 * `__pgDefine(factory)` (the rule's compiled module registers itself) and `__pgMain()` (evaluates the
 * module and either lists its exports or calls one hook on deep-frozen copies of the inputs).
 *
 * The host sets `__pgInput` (a JSON string) before `__pgMain()` runs and reads back the JSON string it
 * returns: `{ok: true, value}` or `{ok: false, kind, message, stack?}`, plus `escapes`.
 *
 * It is a plain string (not a function's `toString()`), so no transpiler helper leaks into it.
 */
export const RULE_PRELUDE_SOURCE = String.raw`
(function () {
  "use strict";
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const freeze = Object.freeze;
  const isFrozen = Object.isFrozen;
  const keys = Object.keys;
  const defineProperty = Object.defineProperty;
  const escapes = [];
  const note = (name, detail) => {
    if (escapes.length < 20) escapes[escapes.length] = { name: String(name), detail: String(detail).slice(0, 200) };
  };
${errorTextSource(400)}
  const stackOf = (e) => {
    try {
      return e && typeof e === "object" && typeof e.stack === "string" ? String(e.stack).slice(0, 2000) : "";
    } catch (_) {
      return "";
    }
  };

  // ---- host globals: a trap records the attempt, then behaves as if the name did not exist
  const HOST = ["process", "require", "module", "exports", "fetch", "XMLHttpRequest", "WebSocket", "Buffer",
    "__dirname", "__filename", "Deno", "Bun", "importScripts", "setImmediate", "setInterval", "setTimeout",
    "queueMicrotask", "global", "navigator", "performance"];
  for (const name of HOST) {
    defineProperty(globalThis, name, {
      configurable: false,
      enumerable: false,
      get() {
        note(name, "read " + name);
        throw new ReferenceError(name + " is not defined");
      },
      set(_v) {
        note(name, "wrote " + name);
        throw new ReferenceError(name + " is not defined");
      },
    });
  }
  for (const name of ["WebAssembly", "SharedArrayBuffer", "Atomics"]) {
    try {
      delete globalThis[name];
    } catch (_) {}
  }
  // code built from strings (eval, Function and its async/generator kinds) may not import either
  const IMPORT = /\bimport\s*\(|\bimport\s*[\w{*]/;
  const checked = (source) => {
    const s = String(source);
    if (IMPORT.test(s)) {
      note("import", "import() in code built from a string");
      throw new Error("import is not available in the sandbox");
    }
    return s;
  };
  const nativeEval = globalThis.eval;
  globalThis.eval = function (source) {
    return typeof source === "string" ? nativeEval(checked(source)) : source;
  };
  for (const sample of [function () {}, async function () {}, function* () {}, async function* () {}]) {
    const proto = Object.getPrototypeOf(sample);
    const Native = proto.constructor;
    const Wrapped = function (...args) {
      return Native(...args.map(checked));
    };
    Wrapped.prototype = proto;
    defineProperty(proto, "constructor", { value: Wrapped, writable: false, configurable: false });
    if (Native === Function) globalThis.Function = Wrapped;
  }
  const requireTrap = function require(spec) {
    note("require", "require(" + String(spec).slice(0, 80) + ")");
    throw new Error("Cannot find module '" + String(spec).slice(0, 80) + "' (a generated rule has no modules)");
  };

  // ---- determinism: a fixed clock, seeded randomness
${virtualClockSource("0")}
${SEEDED_RANDOM_SOURCE}
  globalThis.Date = VirtualDate;

  // ---- the rule API's helpers
  const blocked = function blocked(reason, opts) {
    const o = opts && typeof opts === "object" ? opts : {};
    const out = { blocked: true, reason: String(reason), code: o.code === undefined ? "blocked" : String(o.code),
      retryable: o.retryable === true };
    if (o.extra !== undefined) out.extra = o.extra;
    if (o.seconds) out.seconds = o.seconds;
    return out;
  };
  const matchesTool = function matchesTool(tools, tool) {
    return !tools || tools.length === 0 || tools.indexOf(tool) >= 0;
  };
  defineProperty(globalThis, "blocked", { value: freeze(blocked), writable: false, configurable: false });
  defineProperty(globalThis, "matchesTool", { value: freeze(matchesTool), writable: false, configurable: false });

  const deepFreeze = (v) => {
    if (v !== null && typeof v === "object" && !isFrozen(v)) {
      freeze(v);
      for (const k of keys(v)) deepFreeze(v[k]);
    }
    return v;
  };

  let factory;
  defineProperty(globalThis, "__pgDefine", {
    value: function (fn) {
      if (factory === undefined) factory = fn;
    },
    writable: false,
    configurable: false,
    enumerable: false,
  });

  const HOOKS = ["filterAction", "modifyTransition", "filterObservation"];
  const fail = (kind, message, e) => stringify({ ok: false, kind: kind, message: message, stack: e === undefined ? "" : stackOf(e), escapes: escapes });

  defineProperty(globalThis, "__pgMain", {
    value: function () {
      const input = parse(globalThis.__pgInput);
      if (typeof factory !== "function") return fail("bad_exports", "the rule's code did not load");
      const module = { exports: {} };
      try {
        factory(module, module.exports, requireTrap);
      } catch (e) {
        return fail("throw", "loading the module threw: " + text(e), e);
      }
      const exp = module.exports;
      if (input.mode === "load") {
        const hooks = [];
        for (const h of HOOKS) {
          const f = exp[h];
          if (f === undefined) continue;
          if (typeof f !== "function") return fail("bad_exports", "the export " + h + " is a " + typeof f + ", not a function");
          hooks[hooks.length] = h;
        }
        let directives = null;
        if (exp.directives !== undefined) {
          try {
            directives = parse(stringify(exp.directives));
          } catch (e) {
            return fail("bad_exports", "the export directives is not plain JSON data: " + text(e), e);
          }
        }
        const known = HOOKS.concat(["directives", "__esModule", "default"]);
        const extra = keys(exp).filter((k) => known.indexOf(k) < 0);
        return stringify({ ok: true, value: { hooks: hooks, directives: directives, extra: extra }, escapes: escapes });
      }
      const hook = exp[input.hook];
      if (typeof hook !== "function") return fail("bad_exports", "the rule exports no function " + input.hook);
      const args = deepFreeze(input.args);
      let out;
      try {
        out = hook.apply(undefined, args);
      } catch (e) {
        const m = text(e);
        const mutation = e instanceof TypeError &&
          /read[ -]only|not extensible|Cannot delete|Cannot add property|Cannot define property|Cannot redefine|frozen/i.test(m);
        const memory = e instanceof RangeError && /allocation failed/i.test(m);
        return fail(mutation ? "mutation" : memory ? "memory_limit" : "throw", m, e);
      }
      if (out !== null && (typeof out === "object" || typeof out === "function") && typeof out.then === "function")
        return fail("bad_return", input.hook + " returned a Promise: hooks are synchronous (no async, no await)");
      if (out === undefined) return fail("bad_return", input.hook + " returned undefined");
      let json;
      try {
        json = stringify({ ok: true, value: out, escapes: escapes });
      } catch (e) {
        return fail("bad_return", input.hook + " returned a value that is not plain JSON data: " + text(e), e);
      }
      return json;
    },
    writable: false,
    configurable: false,
    enumerable: false,
  });

  for (const o of [Object, Object.prototype, Array, Array.prototype, Function.prototype, String.prototype,
    Number.prototype, Boolean.prototype, globalThis.Function, Error, Error.prototype, TypeError, TypeError.prototype, JSON, Math,
    Promise, Promise.prototype, RegExp.prototype, Map.prototype, Set.prototype, Symbol, VirtualDate,
    VirtualDate.prototype]) freeze(o);
})();
`;
