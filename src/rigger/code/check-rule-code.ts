import type { Action, Observation, StepResult, ToolResult } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import type { RuleEvent, RuleState } from "../../harness/rule.ts";
import type { LayerSpec } from "../../harness/variant.ts";
import { GENERATED_RULE_ID, type GeneratedRuleDefinition } from "../../rules/generated-rule.ts";
import {
  describeRuleCodeFailure,
  type RuleCodeFailure,
  type RuleHookName,
} from "../../rules/rule-code-failure.ts";
import type { CodeFailure, CodeProposal, CodeRealizer, TrajectoryExcerpt } from "../types.ts";

/**
 * Checking generated rule code before any rollout: compile, load, and (given samples) one call of
 * each exported hook on sample inputs built from real trajectories — so a designer hears about a
 * compile error, an escape, a throw or a bad return in a repair round, not from a failed trial.
 */

/** Inputs for the smoke calls: one per step, in order (each hook is called on every sample). */
export interface RuleCodeSample {
  action: Action;
  result: StepResult;
  state: RuleState;
}

export type CheckRuleCodeResult =
  | { ok: true; layer: LayerSpec; sha256: string; hooks: RuleHookName[] }
  | { ok: false; failures: RuleCodeFailure[]; sha256: string };

/** Samples from a trajectory excerpt: its steps as actions, results and the rule state before each. */
export function samplesFromExcerpt(
  excerpt: TrajectoryExcerpt,
  world: JsonObject = {},
  config: JsonObject = {},
  max = 6,
): RuleCodeSample[] {
  const history: RuleEvent[] = [];
  const samples: RuleCodeSample[] = [];
  excerpt.steps.forEach((s, i) => {
    const action: Action = { tool: s.tool, args: s.args, callId: `call-${s.index}` };
    const result = (
      typeof s.result === "object" && s.result !== null && "ok" in s.result
        ? s.result
        : { ok: true, value: s.result }
    ) as ToolResult;
    const observation: Observation = {
      kind: "tool_result",
      tool: s.tool,
      callId: action.callId,
      result,
      now: i,
    };
    const state: RuleState = { world, now: i, step: i, params: config, history: [...history] };
    if (samples.length < max) {
      samples.push({
        action,
        result: { observation, reward: 0, terminated: false, truncated: false, info: { now: i } },
        state,
      });
    }
    history.push({ step: i, t: i, tool: s.tool, args: s.args, result, blocked: false, fired: false });
  });
  return samples;
}

/** The repair-facing shape of the rigger's contract (`CodeFailure`) for one failure record. */
export function toCodeFailure(f: RuleCodeFailure): CodeFailure {
  const stage: CodeFailure["stage"] =
    f.kind === "compile_error" || f.kind === "hash_mismatch"
      ? "compile"
      : f.kind === "bad_exports"
        ? "load"
        : f.kind === "memory_limit"
          ? "memory"
          : f.kind === "bad_return"
            ? "invalid_result"
            : f.kind === "throw" && f.stage === "load"
              ? "load"
              : f.kind === "escape" && f.stage === "compile"
                ? "escape"
                : f.kind;
  const hook = f.stage !== "compile" && f.stage !== "load" ? f.stage : undefined;
  return { stage, ...(hook ? { hook } : {}), message: describeRuleCodeFailure(f), codeHash: f.sha256 };
}

/**
 * Compiles and loads `source` with the gym's `rule.generated@1` definition, then calls each hook it
 * exports on every sample; returns the layer spec, or every failure found (one per hook at most).
 */
export function checkRuleCode(
  def: GeneratedRuleDefinition,
  source: string,
  opts: { samples?: readonly RuleCodeSample[]; config?: JsonObject } = {},
): CheckRuleCodeResult {
  const prepared = def.prepare(source);
  if (!prepared.ok) return { ok: false, failures: [prepared.failure], sha256: prepared.failure.sha256 };
  const { code, loaded } = prepared.prepared;
  const params: JsonObject = {
    code: source,
    sha256: code.sha256,
    ...(opts.config ? { config: opts.config } : {}),
  };
  const failures: RuleCodeFailure[] = [];
  if (opts.samples?.length) {
    const rule = def.create(params as never);
    for (const hook of loaded.hooks) {
      try {
        for (const s of opts.samples) {
          const state = { ...s.state, params: opts.config ?? {} } as RuleState;
          if (hook === "filterAction") rule.filterAction?.(s.action, state);
          else if (hook === "modifyTransition") rule.modifyTransition?.(s.action, s.result, state);
          else rule.filterObservation?.(s.result.observation, state);
        }
      } catch (err) {
        const record = (err as { details?: unknown }).details as RuleCodeFailure | undefined;
        if (record?.kind) failures.push(record);
        else throw err;
      }
    }
  }
  if (failures.length) return { ok: false, failures, sha256: code.sha256 };
  return { ok: true, layer: { id: GENERATED_RULE_ID, params }, sha256: code.sha256, hooks: loaded.hooks };
}

/**
 * The rigger's `CodeRealizer`: a code proposal becomes its `rule.generated@1` layer (by content
 * hash), or failure records in the contract's `CodeFailure` shape. `samples` (optional) adds smoke calls.
 */
export function ruleCodeRealizer(
  def: GeneratedRuleDefinition,
  opts: { samples?: readonly RuleCodeSample[] } = {},
): CodeRealizer {
  return async (proposal: CodeProposal) => {
    const r = checkRuleCode(def, proposal.source, opts);
    if (!r.ok) return { ok: false, failures: r.failures.map(toCodeFailure) };
    return { ok: true, layer: r.layer, codeHash: r.sha256 };
  };
}
