import type { z } from "zod";
import type { Action, Observation, StepResult, ToolResult } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";

/** One call as a rule layer saw it (its own history: data only, oldest first). */
export interface RuleEvent {
  /** Index among the calls this layer has seen. */
  step: number;
  /** Virtual seconds when the call was made. */
  t: number;
  tool: string;
  args: JsonObject;
  /** What the agent received (after this layer and any outer layer changed it). */
  result: ToolResult;
  /** This layer blocked the call: the inner environment never saw it. */
  blocked: boolean;
  /** This layer changed something on this call (blocked it, rewrote it, its result or its observation). */
  fired: boolean;
}

/**
 * What a rule hook may read: a read-only (deep-frozen), data-only view. `world` is the inner
 * environment's `view()`; `shadow` is present when the rule declared a `shadow` directive for the tool.
 */
export interface RuleState {
  readonly world: Readonly<JsonObject>;
  readonly now: number;
  readonly step: number;
  readonly params: Readonly<JsonObject>;
  readonly history: readonly RuleEvent[];
  /** What the inner environment answers (or answered `secondsAgo` ago) to this call, run on a throwaway copy. */
  readonly shadow?: { t: number; result: ToolResult };
}

/** A rule's refusal: the call never reaches the inner environment; the agent gets an error with this code. */
export interface Blocked {
  blocked: true;
  reason: string;
  code: string;
  retryable: boolean;
  /** Extra fields of the error object (e.g. `retry_after`). */
  extra?: JsonObject;
  /** Virtual seconds the refused call takes (needs a world with time control). */
  seconds?: number;
}

export function blocked(
  reason: string,
  opts: { code?: string; retryable?: boolean; extra?: JsonObject; seconds?: number } = {},
): Blocked {
  return {
    blocked: true,
    reason,
    code: opts.code ?? "blocked",
    retryable: opts.retryable ?? false,
    ...(opts.extra ? { extra: opts.extra } : {}),
    ...(opts.seconds ? { seconds: opts.seconds } : {}),
  };
}

export function isBlocked(value: unknown): value is Blocked {
  return typeof value === "object" && value !== null && (value as { blocked?: unknown }).blocked === true;
}

/**
 * Declarative needs of a rule (data, no code): things the three hooks cannot do by themselves because
 * they are pure, carried out by the rule layer.
 */
export interface RuleDirectives {
  /** Compute `state.shadow` for calls of these tools: the answer of a copy of the inner env as of `secondsAgo`. */
  shadow?: { tools: string[]; secondsAgo: number };
  /** Matching calls take this many more virtual seconds (the reply arrives later; jobs may fire meanwhile). */
  latency?: { tools?: string[]; seconds: number };
  /** Background jobs of these kinds (all when absent) fire `seconds` later than scheduled. */
  deferJobs?: { kinds?: string[]; seconds: number };
}

/**
 * A Rule: three pure hooks and no reward hook. Hooks get frozen copies and return new values; they
 * hold no state of their own (what they need to remember is in `state.history`).
 */
export interface Rule {
  readonly id: string;
  readonly params: Readonly<JsonObject>;
  readonly directives?: RuleDirectives;
  filterAction?(action: Readonly<Action>, state: RuleState): Action | Blocked;
  /** May change the observation, `info` (not the verdict) and `truncated`; reward and `terminated` stay the world's. */
  modifyTransition?(action: Readonly<Action>, result: Readonly<StepResult>, state: RuleState): StepResult;
  filterObservation?(observation: Readonly<Observation>, state: RuleState): Observation;
}

/** A rule in the library: its id (`rule.<name>@<version>`), documented params, and a constructor. */
export interface RuleDefinition<P extends JsonObject = JsonObject> {
  id: string;
  description: string;
  params: z.ZodType<P>;
  create(params: P): Rule;
}

/**
 * Helper for rule definitions: keeps the params type between the schema and `create`.
 *
 * @example
 * ```ts
 * const smallSteps = defineRule({
 *   id: "rule.small-steps@1",
 *   description: "refuse adding more than `max` at once",
 *   params: z.object({ max: z.number() }),
 *   create: (p) => ({
 *     id: "rule.small-steps@1",
 *     params: p,
 *     filterAction: (a) => (Number(a.args.n) > p.max ? blocked(`at most ${p.max}`) : a),
 *   }),
 * });
 * ```
 */
export function defineRule<P extends JsonObject>(def: RuleDefinition<P>): RuleDefinition<P> {
  return def;
}

/** Does `tool` match a tool list (absent or empty: every tool)? */
export function matchesTool(tools: readonly string[] | undefined, tool: string): boolean {
  return !tools || tools.length === 0 || tools.includes(tool);
}
