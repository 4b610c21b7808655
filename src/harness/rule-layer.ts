import type {
  Action,
  Environment,
  EnvSpec,
  Observation,
  ResetOptions,
  StepResult,
  TaskObservation,
  ToolResult,
  UnseenCall,
} from "../core/contracts.ts";
import { configError, ProvingError } from "../core/errors.ts";
import { canonicalJson } from "../core/hash.ts";
import { cloneJson, type JsonObject, type JsonValue } from "../core/json.ts";
import type { SavedEnvironment } from "../core/registry.ts";
import { frozenCopy } from "./deep-freeze.ts";
import { Layer, saveEnvironment } from "./layer.ts";
import { type LayerDefinition, parseLayerParams } from "./layer-definition.ts";
import {
  isBlocked,
  matchesTool,
  type Rule,
  type RuleDefinition,
  type RuleEvent,
  type RuleState,
} from "./rule.ts";
import { recordEvent, refusal, ruleState } from "./rule-hooks.ts";

/** Restores a saved environment (the registry's `restore`): rule layers need it for shadow runs. */
export type Restore = (saved: SavedEnvironment) => Environment;

interface Snapshot {
  t: number;
  saved: SavedEnvironment;
}

export interface RuleLayerState {
  history: RuleEvent[];
  /** Saved copies of the inner env before recent calls (only for rules with a `shadow` directive). */
  snapshots: Snapshot[];
  /** Ids of jobs this layer already deferred (each job is deferred once). */
  deferred: number[];
  /** The tools the agent was shown at reset, when the rule changed them. */
  tools: EnvSpec["tools"] | null;
}

interface SavedRuleLayer extends RuleLayerState {
  last: Observation | null;
  reached: boolean;
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/**
 * A Rule layer: runs one rule's three pure hooks around the inner environment. A blocked action
 * never reaches the inner env and becomes an error observation with the rule's code. When the agent
 * receives something other than what the inner env answered, the layer calls `inner.delivered(...)`
 * so the base world's evidence-aware verifier judges what the agent actually saw.
 */
export class RuleLayer extends Layer {
  private s: RuleLayerState = { history: [], snapshots: [], deferred: [], tools: null };

  /** The inner environment's view, or an empty one when it offers no inspection. */
  private innerView(): Readonly<JsonObject> {
    return this.inner.capabilities.inspection?.view() ?? {};
  }

  constructor(
    inner: Environment,
    readonly rule: Rule,
    private readonly restoreEnv?: Restore,
  ) {
    super(inner, { kind: "rule", id: rule.id, params: cloneJson(rule.params) as JsonObject });
    const d = rule.directives;
    if ((d?.latency || d?.deferJobs) && !this.capabilities.timeControl) {
      throw configError(
        "capability_missing",
        `${rule.id} needs virtual-time control (elapse/deferJob), which ${inner.spec.world} does not offer`,
      );
    }
    if (d?.shadow && !restoreEnv) {
      throw configError("capability_missing", `${rule.id} needs a registry to restore shadow copies`);
    }
  }

  static fromState(inner: Environment, rule: Rule, state: JsonValue, restore?: Restore): RuleLayer {
    const layer = new RuleLayer(inner, rule, restore);
    const { last, reached, ...rest } = cloneJson(state) as unknown as SavedRuleLayer;
    layer.s = rest;
    layer.lastReachedInner = reached;
    layer.last = last ?? undefined;
    return layer;
  }

  /** The calls this rule blocked: the inner environment never saw them, the agent did. */
  protected override unseenCalls(): readonly UnseenCall[] {
    return this.s.history
      .filter((e) => e.blocked)
      .map((e) => ({ tool: e.tool, args: e.args, result: e.result }));
  }

  protected override tools(): EnvSpec["tools"] | undefined {
    if (this.s.tools) return this.s.tools;
    if (!this.rule.filterObservation) return undefined;
    // before reset: what the rule does to the inner tool list in an empty episode
    try {
      const probe: TaskObservation = {
        kind: "task",
        instruction: "",
        context: {},
        tools: this.inner.spec.tools,
      };
      const out = this.rule.filterObservation(frozenCopy(probe), this.state({}, 0, undefined));
      return out.kind === "task" ? out.tools : undefined;
    } catch {
      return undefined;
    }
  }

  protected layerState(): JsonValue {
    const saved: SavedRuleLayer = { ...this.s, last: this.last ?? null, reached: this.lastReachedInner };
    return cloneJson(saved) as unknown as JsonValue;
  }

  protected override hashedState(): JsonValue {
    // snapshots are copies of the inner state (already hashed through the inner env)
    return cloneJson({
      history: this.s.history,
      deferred: this.s.deferred,
      tools: this.s.tools,
    }) as unknown as JsonValue;
  }

  private state(world: JsonObject | (() => JsonObject), now: number, shadow: RuleState["shadow"]): RuleState {
    return ruleState(this.rule, this.s.history, world, now, shadow);
  }

  async reset(opts: ResetOptions): Promise<Observation> {
    this.s = { history: [], snapshots: [], deferred: [], tools: null };
    this.last = undefined;
    this.lastReachedInner = false;
    let obs = await this.inner.reset(opts);
    this.deferJobs();
    if (this.rule.directives?.shadow) this.snapshot(this.now());
    if (this.rule.filterObservation) {
      const out = this.rule.filterObservation(
        frozenCopy(obs),
        this.state(() => this.innerView(), this.now(), undefined),
      );
      if (!same(out, obs)) {
        obs = cloneJson(out);
        if (obs.kind === "task") this.s.tools = cloneJson(obs.tools);
      }
    }
    this.last = obs;
    return obs;
  }

  async step(action: Action): Promise<StepResult> {
    const t = this.now();
    const rule = this.rule;
    const d = rule.directives;
    let shadow: RuleState["shadow"];
    if (d?.shadow) {
      this.snapshot(t);
      if (matchesTool(d.shadow.tools, action?.tool))
        shadow = await this.shadowAt(action, t - d.shadow.secondsAgo);
    }
    const view = () => this.innerView();
    let fired = false;
    let blockedHere = false;
    let result: StepResult;
    let innerObservation: Observation | undefined;
    const filtered = rule.filterAction
      ? rule.filterAction(frozenCopy(action), this.state(view, t, shadow))
      : action;
    if (isBlocked(filtered)) {
      fired = true;
      blockedHere = true;
      if (filtered.seconds) this.timeControl()?.elapse(filtered.seconds);
      const now = this.now();
      const observation: Observation = {
        kind: "tool_result",
        tool: String(action?.tool),
        callId: action?.callId,
        result: refusal(filtered),
        now,
      };
      result = { observation, reward: 0, terminated: false, truncated: false, info: { now } };
    } else {
      const next = cloneJson(filtered) as Action;
      if (!same(next, action)) fired = true;
      const raw = await this.inner.step(next);
      innerObservation = raw.observation;
      this.deferJobs();
      result = raw;
      if (rule.modifyTransition) {
        const m = rule.modifyTransition(frozenCopy(next), frozenCopy(raw), this.state(view, t, shadow));
        result = {
          observation: cloneJson(m.observation),
          reward: raw.reward, // no reward hook: the world's reward stands
          terminated: raw.terminated,
          truncated: raw.truncated || m.truncated === true,
          info: {
            ...cloneJson(m.info),
            now: raw.info.now,
            ...(raw.info.verdict ? { verdict: raw.info.verdict } : {}),
          },
        };
      }
      if (d?.latency && matchesTool(d.latency.tools, next.tool) && !raw.terminated) {
        this.timeControl()!.elapse(d.latency.seconds);
        const now = this.now();
        result = { ...result, info: { ...result.info, now } };
        if (result.observation.kind === "tool_result") result.observation = { ...result.observation, now };
        fired = true;
      }
    }
    if (rule.filterObservation) {
      const out = rule.filterObservation(frozenCopy(result.observation), this.state(view, t, shadow));
      if (!same(out, result.observation)) result = { ...result, observation: cloneJson(out) };
    }
    if (innerObservation && !same(result.observation, innerObservation)) fired = true;
    this.lastReachedInner = !blockedHere;
    if (innerObservation && fired && !same(result.observation, innerObservation))
      this.inner.capabilities.delivery?.delivered(result.observation);
    if (result.terminated) {
      // judged after the world was told what the agent received
      result = { ...result, info: { ...result.info, verdict: this.inner.evaluate() } };
    }
    const layers = [...(result.info.layers ?? []), ...(fired ? [this.info.id] : [])];
    result = { ...result, info: { ...result.info, ...(layers.length ? { layers } : {}) } };
    const received: ToolResult =
      result.observation.kind === "tool_result" ? result.observation.result : { ok: true };
    recordEvent(this.s.history, t, action, received, blockedHere, fired);
    this.last = cloneJson(result.observation);
    return result;
  }

  protected override onDelivered(observation: Observation): void {
    const lastEvent = this.s.history[this.s.history.length - 1];
    if (lastEvent && observation.kind === "tool_result") lastEvent.result = cloneJson(observation.result);
  }

  private snapshot(t: number): void {
    const d = this.rule.directives?.shadow;
    if (!d) return;
    const snaps = this.s.snapshots;
    const lastSnap = snaps[snaps.length - 1];
    const saved = saveEnvironment(this.inner);
    if (lastSnap && lastSnap.t === t) snaps[snaps.length - 1] = { t, saved };
    else snaps.push({ t, saved });
    // keep the newest snapshot at or before (t - secondsAgo) and everything after it
    const horizon = t - d.secondsAgo;
    let keepFrom = 0;
    for (let i = 0; i < snaps.length; i++) if (snaps[i].t <= horizon) keepFrom = i;
    if (keepFrom > 0) snaps.splice(0, keepFrom);
  }

  /** The answer a throwaway copy of the inner env, as it was at time `at`, gives to `action`. */
  private async shadowAt(action: Action, at: number): Promise<{ t: number; result: ToolResult }> {
    const snaps = this.s.snapshots;
    let pick = snaps[0];
    for (const snap of snaps) if (snap.t <= at) pick = snap;
    if (!pick || !this.restoreEnv) throw new ProvingError("no_snapshot", `${this.rule.id}: no snapshot`);
    const copy = this.restoreEnv(cloneJson(pick.saved));
    const r = await copy.step(cloneJson(action));
    const result: ToolResult =
      r.observation.kind === "tool_result"
        ? r.observation.result
        : { ok: false, error: { code: "internal", message: "no result", retryable: false } };
    return { t: pick.t, result };
  }

  /** Defers every pending job of the directive's kinds once (new ones appear after reset and steps). */
  private deferJobs(): void {
    const d = this.rule.directives?.deferJobs;
    if (!d) return;
    const tc = this.timeControl()!;
    const done = new Set(this.s.deferred);
    for (const job of [...this.innerInspection().pendingJobs()]) {
      if (done.has(job.id)) continue;
      if (d.kinds && d.kinds.length > 0 && !d.kinds.includes(job.kind)) continue;
      const moved = tc.deferJob(job.id, d.seconds);
      if (moved !== undefined) {
        done.add(moved);
        this.s.deferred.push(moved);
      }
    }
  }
}

/** A rule of the library as a layer: params checked by the rule's schema, a Rule layer built or restored. */
// biome-ignore lint/suspicious/noExplicitAny: each definition is typed by its own params schema
export function ruleLayerDefinition(def: RuleDefinition<any>, restore: Restore): LayerDefinition {
  return {
    id: def.id,
    description: def.description,
    normalize: (params, site) => parseLayerParams(def.params, params, def.id, site.where),
    wrap: (inner, params) => new RuleLayer(inner, def.create(params), restore),
    restore: (inner, params, state) => RuleLayer.fromState(inner, def.create(params), state, restore),
  };
}
