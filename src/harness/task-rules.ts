import type { Action, Task, ToolResult } from "../core/contracts.ts";
import { configError } from "../core/errors.ts";
import { canonicalJson } from "../core/hash.ts";
import { cloneJson, type JsonObject, type JsonValue } from "../core/json.ts";
import {
  type DispatchRules,
  type ToolWorldState,
  toolWorldView,
  type WorldToolContext,
} from "../core/tool-world.ts";
import { frozenCopy } from "./deep-freeze.ts";
import { isBlocked, type Rule, type RuleDefinition, type RuleEvent } from "./rule.ts";
import { recordEvent, refusal, ruleState } from "./rule-hooks.ts";
import type { LayerSpec } from "./variant.ts";

/** What a task's rules keep in the world's state (`state.rules`): plain data, saved with it. */
export interface TaskRulesState {
  /** One history per rule the task declares, in declaration order. */
  histories: RuleEvent[][];
  /**
   * The last call the rules saw: its trace index and the innermost rule that saw it (the one that
   * refused it, else the first), so `delivered` updates exactly those rules' last events.
   */
  last: { step: number; from: number } | null;
}

export interface TaskRulesOptions {
  /**
   * The rules a task gets, as a variant's layers are written: `{id, params}` from the library,
   * innermost first (the last one sees a call first; a call one refuses, the ones before it never see).
   */
  rules(task: Task): readonly LayerSpec[];
  /** The rule library the ids are looked up in. */
  // biome-ignore lint/suspicious/noExplicitAny: each definition is typed by its own params schema
  library: readonly RuleDefinition<any>[];
}

/**
 * The harness rules a task declares, applied at its tool world's dispatch point (`DispatchRules`): the
 * same rules, hooks and histories as a `RuleLayer`, but a refused call still reaches the world's books
 * — it is traced, takes the world's latency (plus the refusal's `seconds`) and counts in the step
 * indices the verifier reports. Only rules that refuse calls act there (`filterAction`, no directives,
 * no result or observation hooks); anything else is a variant layer. A rule that would rewrite a call
 * is refused too: the tool already checked the arguments it got.
 */
export function taskRules<S extends ToolWorldState>(opts: TaskRulesOptions): DispatchRules<S> {
  const byId = new Map(opts.library.map((d) => [d.id, d]));
  const built = new WeakMap<Task, Rule[]>();

  /** The task's rules, built once per task object (tasks are never mutated). */
  const rulesOf = (task: Task): Rule[] => {
    let rules = built.get(task);
    if (!rules) {
      rules = opts.rules(task).map((spec, i) => build(spec, `${task.id}: rules[${i}]`));
      built.set(task, rules);
    }
    return rules;
  };

  function build(spec: LayerSpec, where: string): Rule {
    const def = byId.get(spec.id);
    if (!def) {
      throw configError(
        "unknown_layer",
        `${where}: unknown rule "${spec.id}" (known: ${[...byId.keys()].join(", ")})`,
      );
    }
    const parsed = def.params.safeParse(spec.params ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw configError(
        "bad_layer_params",
        `${where} (${spec.id}) params.${issue.path.join(".")}: ${issue.message}`,
      );
    }
    const rule = def.create(parsed.data);
    if (!rule.filterAction || rule.directives || rule.modifyTransition || rule.filterObservation) {
      throw configError(
        "capability_missing",
        `${where}: ${spec.id} cannot act at a world's dispatch point (only rules that refuse calls ` +
          "can); use it as a variant layer",
      );
    }
    return rule;
  }

  const stateOf = (s: S): TaskRulesState => s.rules as unknown as TaskRulesState;

  return {
    start(s) {
      s.rules = { histories: rulesOf(s.task).map(() => []), last: null } as unknown as JsonValue;
    },

    call(action: Action, ctx: WorldToolContext<S>, run: () => ToolResult): ToolResult {
      const s = ctx.state;
      const rules = rulesOf(s.task);
      if (rules.length === 0) return run();
      const { histories } = stateOf(s);
      const view = () => toolWorldView(s);
      const t = s.now;
      // outermost (last declared) first, as through the layers of a variant
      let refusedBy = -1;
      let result: ToolResult | undefined;
      for (let i = rules.length - 1; i >= 0; i--) {
        const given = frozenCopy(action);
        const out = rules[i].filterAction!(given, ruleState(rules[i], histories[i], view, t));
        if (isBlocked(out)) {
          refusedBy = i;
          result = refusal(out);
          if (out.seconds) ctx.spend(out.seconds);
          break;
        }
        if (out !== given && canonicalJson(out) !== canonicalJson(action)) {
          throw configError(
            "capability_missing",
            `${rules[i].id} rewrote a call at ${s.task.world}'s dispatch point (it may only refuse)`,
          );
        }
      }
      result ??= run();
      const from = Math.max(refusedBy, 0);
      for (let i = rules.length - 1; i >= from; i--) {
        recordEvent(histories[i], t, action, result, i === refusedBy, i === refusedBy);
      }
      stateOf(s).last = { step: ctx.step, from };
      return result;
    },

    delivered(s, step, result) {
      const last = stateOf(s)?.last;
      if (!last || last.step !== step) return;
      const { histories } = stateOf(s);
      for (let i = last.from; i < histories.length; i++) {
        const event = histories[i][histories[i].length - 1];
        if (event) event.result = cloneJson(result);
      }
    },

    upgrade(s) {
      if (s.rules !== undefined && s.rules !== null) return;
      s.rules = fromBaseFaults(s, rulesOf(s.task)) as unknown as JsonValue;
    },
  };
}

/** `faults` of a tool-world state saved before faults were rules (world versions 1, up to this change). */
interface BaseFaultsV1 {
  rateLimit?: { limit: number; window: number; calls: number[] };
  transientUnavailable?: string[];
}

/**
 * A state saved when the tool world applied its own base faults (`faults.rateLimit` with the times of
 * the calls it counted, `faults.transientUnavailable` with the tools whose refusal was still to come)
 * becomes histories of the rules the task declares now: a counted call for `rule.rate-limit@1`, a
 * refused call for each transient refusal already given by `rule.unavailable@1` (`times`). The legacy
 * fields are dropped.
 */
export function fromBaseFaults(s: ToolWorldState, rules: readonly Rule[]): TaskRulesState {
  const legacy = (s.faults ?? {}) as BaseFaultsV1;
  const histories = rules.map((rule): RuleEvent[] => {
    const p = rule.params as JsonObject;
    const tools = (p.tools as string[] | undefined) ?? [];
    if (rule.id === "rule.rate-limit@1" && legacy.rateLimit) {
      return legacy.rateLimit.calls.map((t, i) => ({
        step: i,
        t,
        tool: tools[0] ?? "",
        args: {},
        result: { ok: true },
        blocked: false,
        fired: false,
      }));
    }
    if (rule.id === "rule.unavailable@1" && legacy.transientUnavailable && typeof p.times === "number") {
      const events: RuleEvent[] = [];
      for (const tool of tools) {
        const pending = legacy.transientUnavailable.filter((x) => x === tool).length;
        for (let k = 0; k < Math.max(0, p.times - pending); k++) {
          events.push({
            step: events.length,
            t: 0,
            tool,
            args: {},
            result: refusal({
              blocked: true,
              reason: `${tool} is temporarily unavailable`,
              code: "unavailable",
              retryable: true,
            }),
            blocked: true,
            fired: true,
          });
        }
      }
      return events;
    }
    return [];
  });
  delete legacy.rateLimit;
  delete legacy.transientUnavailable;
  return { histories, last: null };
}
