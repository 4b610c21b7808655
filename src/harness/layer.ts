import { inspectionOf } from "../core/capabilities.ts";
import type {
  Action,
  AdmissibleAction,
  AdmissibleActions,
  AdmissibleCanonicalForm,
  Delivery,
  Environment,
  EnvironmentCapabilities,
  EnvSpec,
  Inspection,
  Observation,
  ReplayedStep,
  ResetOptions,
  SetupSteps,
  StepResult,
  TimeControl,
  UnseenCall,
  Verdict,
} from "../core/contracts.ts";
import { hashJson } from "../core/hash.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { SavedEnvironment } from "../core/registry.ts";
import type { Job } from "../core/scheduler.ts";

/** Registered factory type of a saved stack (`{env, layers}`). */
export const HARNESS_STACK_TYPE = "harness.stack@1";

export type LayerKind = "setup" | "rule" | "link";

/** What a layer is: its kind, its id (`rule.rate-limit@1`, `setup.replay@1`, `link@1`) and its params. */
export interface LayerInfo {
  kind: LayerKind;
  id: string;
  params: JsonObject;
}

export interface SavedLayer extends LayerInfo {
  state: JsonValue;
}

/** The saved state of a stacked variant: the base environment and its layers, innermost first. */
export interface StackState {
  env: SavedEnvironment;
  layers: SavedLayer[];
}

/** Saves any environment so a registry can restore it: a stack as `harness.stack@1`, a world by its id. */
export function saveEnvironment(env: Environment): SavedEnvironment {
  if (env instanceof Layer) return { type: HARNESS_STACK_TYPE, state: env.saveState() };
  return { type: env.spec.id, state: env.saveState() };
}

/**
 * A harness layer: wraps an Environment and is one. It holds no reference to any verifier:
 * `evaluate()` reaches the base world's frozen verifier through the inner environment. Setup and
 * Rule layers never override it; only a Link combines the verdicts of its two worlds (an AND).
 */
export abstract class Layer
  implements Environment, Inspection, Delivery, TimeControl, SetupSteps, AdmissibleActions
{
  /** Set on the outermost layer of a built variant: its id is the variant id. */
  variantId: string | undefined;
  /**
   * A layer always takes deliveries and reports setup steps; it offers inspection, time control and
   * admissible actions exactly when the environment it wraps does (it forwards them inward).
   */
  readonly capabilities: EnvironmentCapabilities;
  /** The last observation the agent received through this layer. */
  protected last: Observation | undefined;
  /** Whether the inner environment saw the last call (a blocked call does not reach it). */
  protected lastReachedInner = false;

  constructor(
    readonly inner: Environment,
    readonly info: LayerInfo,
  ) {
    const inside = inner.capabilities;
    this.capabilities = {
      delivery: this,
      setup: this,
      ...(inside.inspection ? { inspection: this } : {}),
      ...(inside.timeControl ? { timeControl: this } : {}),
      ...(inside.admissible ? { admissible: this } : {}),
    };
  }

  /**
   * The wrapped environment's admissible actions, less the calls of tools this layer does not show
   * the agent (a disabled, hidden tool). What a layer does to a call it lets through (a fault) is
   * its consequence, not a reason to leave the call out.
   */
  admissibleActions(unseen: readonly UnseenCall[] = []): AdmissibleAction[] {
    const list = this.admissibleInner()?.admissibleActions(this.withUnseen(unseen)) ?? [];
    const shown = this.tools();
    if (!shown) return list;
    const names = new Set(shown.map((t) => t.name));
    return list.filter((a) => names.has(a.tool));
  }

  canonicalAction(
    action: { tool: string; args: JsonObject },
    unseen: readonly UnseenCall[] = [],
  ): AdmissibleAction {
    const inner = this.admissibleInner();
    return inner?.canonicalAction
      ? inner.canonicalAction(action, this.withUnseen(unseen))
      : { tool: action.tool, args: action.args };
  }

  canonicalForm(): AdmissibleCanonicalForm | undefined {
    return this.admissibleInner()?.canonicalForm?.();
  }

  /**
   * The agent's calls this layer answered itself, which the environment inside never saw (a blocked
   * call): the lists inside count them as seen. None by default.
   */
  protected unseenCalls(): readonly UnseenCall[] {
    return [];
  }

  /** This layer's unseen calls, then those of the layers outside it. */
  private withUnseen(outer: readonly UnseenCall[]): readonly UnseenCall[] {
    const own = this.unseenCalls();
    return own.length === 0 ? outer : [...own, ...outer];
  }

  /** Where the admissible actions come from: the wrapped environment (a Link: the current stage's). */
  protected admissibleInner(): AdmissibleActions | undefined {
    return this.inner.capabilities.admissible;
  }

  get spec(): EnvSpec {
    const inner = this.inner.spec;
    return {
      ...inner,
      id: this.variantId ?? `${inner.id}+${this.info.id}`,
      tools: this.tools() ?? inner.tools,
    };
  }

  /** Tools the agent sees, when this layer changes them. */
  protected tools(): EnvSpec["tools"] | undefined {
    return undefined;
  }

  abstract reset(opts: ResetOptions): Promise<Observation>;
  abstract step(action: Action): Promise<StepResult>;
  /** This layer's own state (data only). */
  protected abstract layerState(): JsonValue;

  observe(): Observation {
    return this.last ?? this.inner.observe();
  }

  evaluate(): Verdict {
    return this.inner.evaluate();
  }

  /** Closes the inner environment (a remote session under the layers). */
  async close(): Promise<void> {
    await this.inner.close?.();
  }

  /** `{env: {type, state}, layers: [innermost … outermost]}`. */
  saveState(): JsonValue {
    const below: StackState =
      this.inner instanceof Layer
        ? (this.inner.saveState() as unknown as StackState)
        : { env: saveEnvironment(this.inner), layers: [] };
    const own: SavedLayer = { ...structuredClone(this.info), state: this.layerState() };
    return { env: below.env, layers: [...below.layers, own] } as unknown as JsonValue;
  }

  delivered(observation: Observation): void {
    this.last = structuredClone(observation);
    this.onDelivered(observation);
    if (this.lastReachedInner) this.inner.capabilities.delivery?.delivered(observation);
  }

  /** A layer that keeps a history updates it here when an outer layer changed what the agent got. */
  protected onDelivered(_observation: Observation): void {}

  /** The inner environment's inspection; only called when this layer declared inspection. */
  protected innerInspection(): Inspection {
    return inspectionOf(this.inner);
  }

  view(): Readonly<JsonObject> {
    return this.innerInspection().view();
  }

  stateHash(): string {
    return hashJson({
      inner: this.innerInspection().stateHash(),
      layer: this.info.id,
      state: this.hashedState(),
    });
  }

  /** The part of the layer's state that decides what it does next (default: all of it). */
  protected hashedState(): JsonValue {
    return this.layerState();
  }

  pendingJobs(): readonly Job[] {
    return this.innerInspection().pendingJobs();
  }

  leakedJobs(): number {
    return this.innerInspection().leakedJobs();
  }

  /** Setup steps of inner Setup layers (a Setup layer adds its own). */
  setupSteps(): ReplayedStep[] {
    return this.inner.capabilities.setup?.setupSteps() ?? [];
  }

  // ---- time control, forwarded inward when the base world offers it

  elapse(seconds: number): void {
    this.timeControl()?.elapse(seconds);
  }

  deferJob(id: number, seconds: number): number | undefined {
    return this.timeControl()?.deferJob(id, seconds);
  }

  /** The time control of the environment this layer currently plays (the inner one by default). */
  protected timeControl(): TimeControl | undefined {
    return this.inner.capabilities.timeControl;
  }

  /** Virtual now of the inner environment (its view's `now`, else the last observation's). */
  protected now(): number {
    const v = this.inner.capabilities.inspection?.view();
    if (typeof v?.now === "number") return v.now;
    const o = this.last ?? this.inner.observe();
    return o.kind === "tool_result" ? o.now : 0;
  }
}
