/**
 * What went wrong with a generated rule's code, as a record: versioned JSON, written for the designer
 * that wrote the code (an LLM) so it can repair it. Every failure of generated code — at compile time,
 * when the module loads, or in a hook call — is one of these; none is an exception in the host.
 */

/** The rule hooks a generated rule may export. */
export type RuleHookName = "filterAction" | "modifyTransition" | "filterObservation";

export const RULE_HOOKS: readonly RuleHookName[] = ["filterAction", "modifyTransition", "filterObservation"];

export type RuleCodeFailureKind =
  /** esbuild could not compile the TypeScript (syntax). */
  | "compile_error"
  /** The source is not the code its declared sha256 names. */
  | "hash_mismatch"
  /** The module exports no hook, a hook that is not a function, or directives that are not data. */
  | "bad_exports"
  /** The code reached for the host: `process`, `require`, `import`, `fetch`, ... */
  | "escape"
  /** A hook call ran past the time limit. */
  | "timeout"
  /** A hook call went past the isolate's heap limit. */
  | "memory_limit"
  /** A hook tried to change the (frozen) data it was given. */
  | "mutation"
  /** A hook (or the module's top level) threw. */
  | "throw"
  /** A hook returned something that is not what it must return (undefined, a Promise, not JSON, wrong shape). */
  | "bad_return";

export type RuleCodeStage = "compile" | "load" | RuleHookName;

export const RULE_CODE_FAILURE_SCHEMA_VERSION = 1;

/** Where in the rule's TypeScript source the failure points (1-based line and column). */
export interface RuleCodeLocation {
  line: number;
  column: number;
  /** The source line. */
  text: string;
}

export interface RuleCodeFailure {
  schemaVersion: typeof RULE_CODE_FAILURE_SCHEMA_VERSION;
  kind: RuleCodeFailureKind;
  stage: RuleCodeStage;
  /** What happened and what to do about it, for the designer (one or two sentences). */
  message: string;
  /** sha256 (hex) of the rule's source. */
  sha256: string;
  location?: RuleCodeLocation;
  /** Host names the code reached for (kind `escape`). */
  escapes?: { name: string; detail: string }[];
}

/** How to repair each kind of failure (appended to the record's message). */
export const REPAIR_HINTS: Readonly<Record<RuleCodeFailureKind, string>> = {
  compile_error: "Fix the syntax; the code must be valid TypeScript.",
  hash_mismatch: "Store the rule with the sha256 of its exact source.",
  bad_exports:
    "Export at least one of the functions filterAction, modifyTransition, filterObservation, and optionally `directives` as plain data.",
  escape:
    "The code runs in a sandbox with no modules, no process, no network and no timers: remove imports and host globals, use only the state and helpers (blocked, matchesTool) the hooks get.",
  timeout:
    "A hook must return quickly: remove unbounded loops and recursion; iterate over state.history at most.",
  memory_limit: "A hook must not build large data: remove structures that grow without bound.",
  mutation:
    "The hook's arguments are frozen: return a new value instead of changing them (e.g. {...action, args: {...action.args, x: 1}}).",
  throw: "Guard against missing fields (optional chaining, defaults) and do not throw from a hook.",
  bad_return:
    "filterAction returns an action or blocked(...); modifyTransition returns a step result {observation, info, truncated}; filterObservation returns an observation. Hooks are synchronous and return plain JSON data.",
};

/** A failure record (the message gets the kind's repair hint). */
export function ruleCodeFailure(
  kind: RuleCodeFailureKind,
  stage: RuleCodeStage,
  message: string,
  sha256: string,
  extra: { location?: RuleCodeLocation; escapes?: { name: string; detail: string }[] } = {},
): RuleCodeFailure {
  return {
    schemaVersion: RULE_CODE_FAILURE_SCHEMA_VERSION,
    kind,
    stage,
    message: `${/[.!?]$/.test(message.trim()) ? message.trim() : `${message.trim()}.`} ${REPAIR_HINTS[kind]}`,
    sha256,
    ...(extra.location ? { location: extra.location } : {}),
    ...(extra.escapes?.length ? { escapes: extra.escapes } : {}),
  };
}

/** One failure as text for a repair prompt: stage, kind, location with its source line, message. */
export function describeRuleCodeFailure(f: RuleCodeFailure): string {
  const where = f.location
    ? ` at line ${f.location.line}:${f.location.column} (\`${f.location.text.trim()}\`)`
    : "";
  return `[${f.stage}] ${f.kind}${where}: ${f.message}`;
}
