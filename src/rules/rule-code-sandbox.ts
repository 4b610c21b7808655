import type { JsonObject, JsonValue } from "../core/json.ts";
import type { CompiledRuleCode } from "./compile-rule-code.ts";
import type { RuleCodeFailure, RuleHookName } from "./rule-code-failure.ts";

/**
 * What runs a generated rule's code: injected into `generatedRule(sandbox)` (the harness never sees
 * it). Synchronous, like rule hooks; values go in and out as JSON text, so the code never holds a
 * host object. Never throws for what the code does: every failure is a `RuleCodeFailure`.
 */
export interface RuleCodeSandbox {
  /** What runs the code and its limits, e.g. `isolated-vm@5.0.4 (hook 200 ms, 32 MiB)`. */
  readonly id: string;
  readonly limits: Readonly<Required<RuleCodeLimits>>;
  /** Evaluates the module: the hooks it exports and its `directives` (data). */
  load(code: CompiledRuleCode): RuleCodeResult<LoadedRuleCode>;
  /** Calls one hook on copies of `args` (frozen inside the sandbox) within the limits. */
  call(code: CompiledRuleCode, hook: RuleHookName, args: JsonValue[]): RuleCodeResult<JsonValue>;
  /** Frees every isolate the sandbox holds (it makes new ones if used again). */
  dispose(): void;
}

export interface RuleCodeLimits {
  /**
   * Wall-clock limit of one hook call (and of loading the module), in ms (default 500). A call it
   * stops while the process used under half of it in CPU time (a busy machine) is tried again, 3
   * tries in all.
   */
  timeoutMs?: number;
  /** Heap limit of the isolate a call runs in, in MiB (default 32; isolated-vm's minimum is 8). */
  memoryMb?: number;
}

export interface LoadedRuleCode {
  hooks: RuleHookName[];
  directives: JsonObject | null;
  /** Other names the module exports (ignored). */
  extra: string[];
}

export type RuleCodeResult<T> = { ok: true; value: T } | { ok: false; failure: RuleCodeFailure };
