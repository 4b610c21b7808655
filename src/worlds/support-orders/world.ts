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
  ResetOptions,
  StepResult,
  Task,
  TimeControl,
  UnseenCall,
  Verdict,
} from "../../core/contracts.ts";
import { ProvingError } from "../../core/errors.ts";
import { cloneJson, type JsonObject, type JsonValue } from "../../core/json.ts";
import type { SavedEnvironment } from "../../core/registry.ts";
import type { Job } from "../../core/scheduler.ts";
import type { StackState } from "../../harness/layer.ts";
import { type LinkDeps, LinkLayer, type LinkParams } from "../../harness/link-layer.ts";
import { DEVICE_SUPPORT_ID, DEVICE_SUPPORT_VERIFIER, DeviceSupportWorld } from "../device-support/index.ts";
import { ORDER_OPS_ID, ORDER_OPS_VERIFIER, OrderOpsWorld, orderOps } from "../order-ops/index.ts";
import { replacementOrderHandoff } from "./handoff.ts";
import type { SupportOrdersParams } from "./tasks.ts";
import { WORLD_ID } from "./tasks.ts";

export const VERIFIER_ID = `${DEVICE_SUPPORT_VERIFIER}+${ORDER_OPS_VERIFIER}`;

const restore = (saved: SavedEnvironment): Environment => {
  if (saved.type === DEVICE_SUPPORT_ID) return DeviceSupportWorld.fromState(saved.state);
  if (saved.type === ORDER_OPS_ID) return OrderOpsWorld.fromState(saved.state);
  throw new ProvingError("wrong_state_type", `${WORLD_ID} cannot restore ${saved.type}`);
};

/** The link's parts, each a world that declares admissible actions; `onB` is told of world B when made. */
const depsWith = (onB: (b: Environment) => void): LinkDeps => ({
  b: orderOps,
  createB: () => {
    const b = new OrderOpsWorld();
    onB(b);
    return b;
  },
  handoff: replacementOrderHandoff,
  restore: (saved) => {
    const env = restore(saved);
    if (saved.type === ORDER_OPS_ID) onB(env);
    return env;
  },
});

interface Saved {
  task: Task;
  first: Observation;
  link: StackState;
}

/**
 * `support-orders@1`: a registered world that is a Link layer over device-support@1 with order-ops@1
 * as world B, one linked family per (A family, B family). Its verdict is A.passed AND B.passed.
 */
export class SupportOrdersWorld implements Environment, Inspection, Delivery, TimeControl, AdmissibleActions {
  /**
   * Both parts are tool worlds in this process: inspection, deliveries and time control pass through;
   * the admissible actions are those of the part the agent is in (device-support, then order-ops).
   */
  readonly capabilities: EnvironmentCapabilities = {
    inspection: this,
    delivery: this,
    timeControl: this,
    admissible: this,
  };
  private link: LinkLayer | undefined;
  /** The parts, for their admissible actions. */
  private a: DeviceSupportWorld | undefined;
  private b: Environment | undefined;
  private readonly deps = depsWith((b) => {
    this.b = b;
  });
  private task: Task | undefined;
  /** The first observation (task A, with the linked instruction). */
  private first: Observation | undefined;

  get spec(): EnvSpec {
    const inner = this.link?.spec;
    return {
      id: WORLD_ID,
      world: WORLD_ID,
      tools: inner ? inner.tools : new DeviceSupportWorld().spec.tools,
      terminalTools: inner ? inner.terminalTools : ["close_case"],
      verifier: VERIFIER_ID,
    };
  }

  static fromState(saved: JsonValue): SupportOrdersWorld {
    const s = cloneJson(saved) as unknown as Saved;
    const world = new SupportOrdersWorld();
    const a = DeviceSupportWorld.fromState(s.link.env.state);
    const layer = s.link.layers[0];
    world.a = a;
    world.link = LinkLayer.fromState(a, layer.params as unknown as LinkParams, world.deps, layer.state);
    world.task = s.task;
    world.first = s.first;
    return world;
  }

  private get active(): LinkLayer {
    if (!this.link) throw new ProvingError("not_reset", `${WORLD_ID}: step before reset`);
    return this.link;
  }

  async reset(opts: ResetOptions): Promise<Observation> {
    if (opts.task.world !== WORLD_ID) {
      throw new ProvingError(
        "wrong_world",
        `task ${opts.task.id} is for ${opts.task.world}, not ${WORLD_ID}`,
      );
    }
    const p = opts.task.params as unknown as SupportOrdersParams;
    const params: LinkParams = {
      world: p.link.world,
      family: p.link.family,
      handoff: p.link.handoff,
      ...(p.link.params ? { params: p.link.params } : {}),
    };
    this.task = cloneJson(opts.task);
    this.a = new DeviceSupportWorld();
    this.b = undefined;
    this.link = new LinkLayer(this.a, params, this.deps);
    const obs = await this.link.reset({ ...opts, task: p.a });
    this.first = obs.kind === "task" ? { ...obs, instruction: opts.task.instruction } : obs;
    return cloneJson(this.first);
  }

  step(action: Action): Promise<StepResult> {
    return this.active.step(action);
  }

  observe(): Observation {
    const link = this.active;
    const obs = link.observe();
    return obs.kind === "task" && link.stage === "a" && this.first ? cloneJson(this.first) : obs;
  }

  evaluate(): Verdict {
    return this.active.evaluate();
  }

  saveState(): JsonValue {
    const saved: Saved = {
      task: this.task!,
      first: this.first!,
      link: this.active.saveState() as unknown as StackState,
    };
    return cloneJson(saved) as unknown as JsonValue;
  }

  /** The part the agent is in: device-support's list, then order-ops' after the hand-off; none once done. */
  private part(): AdmissibleActions | undefined {
    const stage = this.active.stage;
    if (stage === "a") return this.a?.capabilities.admissible;
    return stage === "b" ? this.b?.capabilities.admissible : undefined;
  }

  admissibleActions(unseen?: readonly UnseenCall[]): AdmissibleAction[] {
    return this.part()?.admissibleActions(unseen) ?? [];
  }

  canonicalAction(
    action: { tool: string; args: JsonObject },
    unseen?: readonly UnseenCall[],
  ): AdmissibleAction {
    return this.part()?.canonicalAction?.(action, unseen) ?? { tool: action.tool, args: action.args };
  }

  canonicalForm(): AdmissibleCanonicalForm | undefined {
    return this.part()?.canonicalForm?.();
  }

  delivered(observation: Observation): void {
    this.active.delivered(observation);
  }

  view(): Readonly<JsonObject> {
    return this.active.view();
  }

  stateHash(): string {
    return this.active.stateHash();
  }

  pendingJobs(): readonly Job[] {
    return this.active.pendingJobs();
  }

  leakedJobs(): number {
    return this.active.leakedJobs();
  }

  elapse(seconds: number): void {
    this.active.elapse(seconds);
  }

  deferJob(id: number, seconds: number): number | undefined {
    return this.active.deferJob(id, seconds);
  }
}
