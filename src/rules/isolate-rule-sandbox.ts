/**
 * The isolated-vm sandbox of generated rules. Each rule's code (by sha256) gets its own V8 isolate
 * with a heap limit; every hook call runs in a FRESH context of it (the prelude, then the module,
 * then the hook), so nothing one call leaves in globals is seen by the next call, the next trial or
 * another rule, and has a wall-clock time limit (a call stopped by it while the process barely used
 * the CPU, i.e. it waited for a core, runs again in a fresh context: 3 tries in all, so load alone
 * does not fail a rule). A call that breaks a limit is a failure record and
 * the isolate is thrown away (a new one serves the next call); the host goes on.
 *
 * It runs on the project's one isolated-vm host (`src/sandbox/isolate-host.ts`).
 */
import { ProvingError } from "../core/errors.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import {
  disposeIsolate,
  ISOLATED_VM,
  type Isolate,
  type IsolateScript,
  isolateHost,
} from "../sandbox/isolate-host.ts";
import { type CompiledRuleCode, locateInSource } from "./compile-rule-code.ts";
import {
  type RuleCodeFailureKind,
  type RuleCodeStage,
  type RuleHookName,
  ruleCodeFailure,
} from "./rule-code-failure.ts";
import type { LoadedRuleCode, RuleCodeLimits, RuleCodeResult, RuleCodeSandbox } from "./rule-code-sandbox.ts";
import { RULE_PRELUDE_SOURCE } from "./rule-prelude-source.ts";

interface Slot {
  isolate: Isolate;
  prelude: IsolateScript;
  rule: IsolateScript;
  main: IsolateScript;
}

/** The rule's module is wrapped on one line before its first: stack line N is compiled line N - 1. */
const LINE_OFFSET = 1;
const MAX_OUTPUT = 1_000_000;
const MAX_ISOLATES = 8;

const KINDS = new Set<RuleCodeFailureKind>([
  "bad_exports",
  "mutation",
  "throw",
  "bad_return",
  "memory_limit",
]);

/** Host globals the prelude traps (their ReferenceError, escaping through a Promise, is an escape). */
const HOST_NAMES = new Set([
  "process",
  "require",
  "module",
  "exports",
  "fetch",
  "Buffer",
  "global",
  "setTimeout",
]);

interface RawOutcome {
  ok?: boolean;
  value?: JsonValue;
  kind?: string;
  message?: string;
  stack?: string;
  escapes?: { name?: unknown; detail?: unknown }[];
}

/** Tries of a call the wall-clock limit stopped while the process used little CPU (a busy machine). */
const STALL_TRIES = 3;

export interface IsolateRuleSandboxOptions {
  /** The process's CPU time in ms, read before and after a call (default `process.cpuUsage`). */
  cpuMs?: () => number;
}

/** A `RuleCodeSandbox` on isolated-vm: per hook call a fresh context, a time limit and a heap limit. */
export function isolateRuleSandbox(
  limits: RuleCodeLimits = {},
  opts: IsolateRuleSandboxOptions = {},
): RuleCodeSandbox {
  const host = isolateHost({
    timeoutMs: limits.timeoutMs ?? 500,
    memoryMb: limits.memoryMb ?? 32,
    needs: "generated rules need",
    stallTries: STALL_TRIES,
    ...(opts.cpuMs ? { cpuMs: opts.cpuMs } : {}),
  });
  const { timeoutMs, memoryMb } = host;
  const slots = new Map<string, Slot>();

  const drop = (sha: string) => {
    const slot = slots.get(sha);
    slots.delete(sha);
    if (slot) disposeIsolate(slot.isolate);
  };

  const slotFor = (code: CompiledRuleCode): Slot => {
    const known = slots.get(code.sha256);
    if (known && !known.isolate.isDisposed) {
      // most recently used last
      slots.delete(code.sha256);
      slots.set(code.sha256, known);
      return known;
    }
    if (known) slots.delete(code.sha256);
    const isolate = host.newIsolate();
    try {
      const slot: Slot = {
        isolate,
        prelude: isolate.compileScriptSync(RULE_PRELUDE_SOURCE, { filename: "proving-rule-prelude.js" }),
        rule: isolate.compileScriptSync(
          `__pgDefine(function (module, exports, require) { "use strict";\n${code.js}\n});`,
          { filename: "rule.js" },
        ),
        main: isolate.compileScriptSync("__pgMain()", { filename: "proving-rule-main.js" }),
      };
      slots.set(code.sha256, slot);
      while (slots.size > MAX_ISOLATES) drop(slots.keys().next().value as string);
      return slot;
    } catch (err) {
      disposeIsolate(isolate);
      throw err;
    }
  };

  const run = (
    code: CompiledRuleCode,
    stage: RuleCodeStage,
    input: JsonObject,
  ): RuleCodeResult<JsonValue> => {
    const failed = (
      kind: RuleCodeFailureKind,
      message: string,
      extra?: Parameters<typeof ruleCodeFailure>[4],
    ) => ({
      ok: false as const,
      failure: ruleCodeFailure(kind, stage, message, code.sha256, extra),
    });
    let slot: Slot;
    try {
      slot = slotFor(code);
    } catch (err) {
      if (err instanceof ProvingError) throw err;
      // the compiled module does not parse as a script (esbuild accepted it as a module)
      return failed("compile_error", `The compiled code does not load: ${(err as Error).message}.`);
    }
    const { isolate } = slot;
    let raw: unknown;
    try {
      // a fresh context per call; the limit is wall-clock, so a call stopped while it waited for a
      // core runs again in another fresh context (same inputs, Date fixed, Math.random seeded)
      raw = host.runFresh(isolate, (context, limit) => {
        slot.prelude.runSync(context, limit);
        slot.rule.runSync(context, limit);
        context.global.setSync("__pgInput", JSON.stringify(input));
        return slot.main.runSync(context, limit);
      });
    } catch (err) {
      const broken = host.brokenLimit(err, isolate);
      if (broken === "memory_limit") {
        drop(code.sha256);
        return failed(
          "memory_limit",
          `${stage === "load" ? "Loading the module" : `The ${stage} call`} went past the ${memoryMb} MiB heap limit.`,
        );
      }
      if (broken === "timeout") {
        drop(code.sha256);
        return failed(
          "timeout",
          `${stage === "load" ? "Loading the module" : `The ${stage} call`} ran past the ${timeoutMs} ms time limit.`,
        );
      }
      // only the code's own doing gets here (e.g. a rejected Promise it left behind): a failure of it
      const message = String((err as Error)?.message ?? err);
      const hostName = /^(?:\w*Error: )?([\w$]+) is not defined/.exec(message)?.[1];
      if (hostName && HOST_NAMES.has(hostName)) {
        return failed("escape", `The code reached for ${hostName}, which the sandbox does not have.`, {
          escapes: [{ name: hostName, detail: `read ${hostName}` }],
        });
      }
      return failed(
        "throw",
        `An error escaped the ${stage} call (a rejected Promise?): ${message.slice(0, 300)}`,
      );
    }
    if (typeof raw !== "string") return failed("bad_return", `The ${stage} call gave no result.`);
    if (raw.length > MAX_OUTPUT)
      return failed(
        "bad_return",
        `The ${stage} call returned ${raw.length} characters of JSON, more than ${MAX_OUTPUT}.`,
      );
    let out: RawOutcome;
    try {
      out = JSON.parse(raw) as RawOutcome;
    } catch {
      return failed("bad_return", `The ${stage} call returned something that is not JSON.`);
    }
    const escapes = (Array.isArray(out.escapes) ? out.escapes : []).slice(0, 20).map((e) => ({
      name: String(e?.name ?? "").slice(0, 40),
      detail: String(e?.detail ?? "").slice(0, 200),
    }));
    const location = out.stack ? locateInSource(code, out.stack, LINE_OFFSET) : undefined;
    if (escapes.length > 0) {
      const names = [...new Set(escapes.map((e) => e.name))].join(", ");
      return failed("escape", `The code reached for ${names}, which the sandbox does not have.`, {
        escapes,
        ...(location ? { location } : {}),
      });
    }
    if (out.ok === true) return { ok: true, value: (out.value ?? null) as JsonValue };
    const kind = KINDS.has(out.kind as RuleCodeFailureKind) ? (out.kind as RuleCodeFailureKind) : "throw";
    if (kind === "memory_limit")
      return failed(
        kind,
        `The ${stage} call went past the ${memoryMb} MiB heap limit (${String(out.message).slice(0, 100)}).`,
      );
    const what = kind === "mutation" ? `The ${stage} hook changed its frozen input: ` : "";
    return failed(
      kind,
      `${what}${String(out.message ?? "failed").slice(0, 400)}`,
      location ? { location } : {},
    );
  };

  return {
    id: `${ISOLATED_VM} (hook ${timeoutMs} ms, ${memoryMb} MiB)`,
    limits: { timeoutMs, memoryMb },
    load(code: CompiledRuleCode): RuleCodeResult<LoadedRuleCode> {
      const r = run(code, "load", { mode: "load" });
      if (!r.ok) return r;
      const v = r.value as unknown as LoadedRuleCode;
      if (!Array.isArray(v?.hooks) || v.hooks.length === 0) {
        return {
          ok: false,
          failure: ruleCodeFailure("bad_exports", "load", "The module exports no hook.", code.sha256),
        };
      }
      return { ok: true, value: { hooks: v.hooks, directives: v.directives ?? null, extra: v.extra ?? [] } };
    },
    call(code: CompiledRuleCode, hook: RuleHookName, args: JsonValue[]): RuleCodeResult<JsonValue> {
      return run(code, hook, { mode: "call", hook, args });
    },
    dispose(): void {
      for (const sha of [...slots.keys()]) drop(sha);
    },
  };
}
