import type {
  Action,
  Environment,
  EnvSpec,
  Observation,
  ResetOptions,
  StepResult,
  Task,
  ToolDescriptor,
  ToolResult,
  Verdict,
} from "../../core/contracts.ts";
import { EffectLog } from "../../core/effect-log.ts";
import { ProvingError } from "../../core/errors.ts";
import { hashJson } from "../../core/hash.ts";
import { cloneJson, type JsonObject, type JsonValue } from "../../core/json.ts";
import { Rng } from "../../core/rng.ts";
import { Scheduler } from "../../core/scheduler.ts";
import { parseToolArgs, toolDescriptor, toolError } from "../../core/tool.ts";
import { type OrderOpsState, VERIFIER_ID, WORLD_ID } from "./state.ts";
import type { OrderOpsParams } from "./tasks.ts";
import { RATE_LIMITED_TOOLS, TOOLS, type ToolContext } from "./tools.ts";
import { verifyOrderOps } from "./verifier.ts";

const TOOL_BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));
export const ORDER_OPS_TOOLS: readonly ToolDescriptor[] = TOOLS.map(toolDescriptor);

export const ORDER_OPS_SPEC: EnvSpec = {
  id: WORLD_ID,
  world: WORLD_ID,
  tools: ORDER_OPS_TOOLS as ToolDescriptor[],
  terminalTools: ["close_ticket"],
  verifier: VERIFIER_ID,
};

/** Builds the start state of an episode from a task and a seed. Pure. */
export function initialState(task: Task, seed: number, episode: string): OrderOpsState {
  if (task.world !== WORLD_ID) {
    throw new ProvingError("wrong_world", "config", `task ${task.id} is for ${task.world}, not ${WORLD_ID}`);
  }
  const p = task.params as unknown as OrderOpsParams;
  return {
    task,
    seed,
    episode,
    now: 0,
    ended: false,
    latency: p.latency,
    entities: {
      today: p.today,
      customers: cloneJson(p.customers),
      orders: cloneJson(p.orders),
      shipments: cloneJson(p.shipments),
      refunds: [],
      tickets: cloneJson(p.tickets),
      messages: [],
      escalations: [],
    },
    faults: {
      firstRefund: p.firstRefund,
      firstRefundDone: false,
      refundDelay: p.refundDelay,
      rateLimit: { limit: p.rateLimit.limit, window: p.rateLimit.window, calls: [] },
      transientUnavailable: [...p.transientUnavailable],
    },
    counters: { refund: 0, shipment: 0, message: 0, escalation: 0 },
    scheduler: { nextId: 1, jobs: [] },
    rng: Rng.seeded(seed, `${WORLD_ID}/episode`).saveState(),
    effects: [],
    trace: [],
    strayJobs: 0,
  };
}

/**
 * The order-ops world (spec: spec/order-ops.md). Besides the Environment contract it offers virtual
 * time control to harness layers: `elapse(seconds)` and `deferJob(id, seconds)`.
 */
export class OrderOpsWorld implements Environment {
  readonly spec: EnvSpec = ORDER_OPS_SPEC;
  private s: OrderOpsState | undefined;
  private scheduler = new Scheduler();
  private rng = Rng.seeded(0);
  private effects = new EffectLog();

  static fromState(saved: JsonValue): OrderOpsWorld {
    const world = new OrderOpsWorld();
    world.load(cloneJson(saved) as unknown as OrderOpsState);
    return world;
  }

  private load(state: OrderOpsState): void {
    this.s = state;
    this.scheduler = Scheduler.fromState(state.scheduler);
    this.rng = Rng.fromState(state.rng);
    this.effects = new EffectLog(state.effects);
  }

  private get state(): OrderOpsState {
    if (!this.s) throw new ProvingError("not_reset", "internal", "order-ops: step before reset");
    return this.s;
  }

  async reset(opts: ResetOptions): Promise<Observation> {
    const episode = opts.episodeId ?? `${opts.task.id}#${opts.seed}`;
    this.load(initialState(opts.task, opts.seed, episode));
    const p = opts.task.params as unknown as OrderOpsParams;
    for (const job of p.jobs)
      this.scheduler.schedule(episode, job.after, job.kind, { order_id: job.order_id });
    return this.observe();
  }

  observe(): Observation {
    const s = this.state;
    const last = s.trace[s.trace.length - 1];
    if (last)
      return { kind: "tool_result", tool: last.tool, callId: last.callId, result: last.result, now: s.now };
    return {
      kind: "task",
      instruction: s.task.instruction,
      context: cloneJson((s.task.params as unknown as OrderOpsParams).context),
      tools: this.spec.tools,
    };
  }

  async step(action: Action): Promise<StepResult> {
    const s = this.state;
    const stepIndex = s.trace.length;
    const startedAt = s.now;
    let extra = 0;
    let result: ToolResult;
    const tool = TOOL_BY_NAME.get(action?.tool);
    if (s.ended) {
      result = toolError("episode_ended", "the episode has ended; reset to start another");
    } else if (!tool) {
      result = toolError("invalid_argument", `unknown tool "${String(action?.tool).slice(0, 80)}"`);
    } else {
      const parsed = parseToolArgs(tool, action.args);
      if (!parsed.ok) {
        result = { ok: false, error: parsed.error };
      } else if (this.takeTransientFault(tool.name)) {
        result = toolError("unavailable", `${tool.name} is temporarily unavailable`, true);
      } else {
        const limited = this.rateLimited(tool.name);
        if (limited !== null) {
          const error = {
            code: "rate_limited",
            message: `too many calls; retry after ${limited} s`,
            retryable: true,
          };
          result = { ok: false, error: { ...error, retry_after: limited } as typeof error };
        } else {
          const ctx: ToolContext = {
            state: s,
            step: stepIndex,
            schedule: (due, kind, data) => {
              this.scheduler.schedule(s.episode, due, kind, data);
            },
            logEffect: (effect) => {
              this.effects.append({ t: s.now, step: stepIndex, ...effect });
            },
            spend: (seconds) => {
              extra += seconds;
            },
            newId: (prefix, counter) => `${prefix}-${++s.counters[counter]}${this.rng.id(4).toUpperCase()}`,
          };
          result = tool.run(parsed.value, ctx);
        }
      }
    }
    const terminated = s.ended && result.ok && action.tool === "close_ticket";
    this.advance((tool?.name === "wait" && result.ok ? 0 : s.latency) + extra);
    const callId = action?.callId ?? String(stepIndex);
    s.trace.push({
      step: stepIndex,
      t: startedAt,
      tool: String(action?.tool),
      callId,
      args: action?.args ?? {},
      result,
    });
    const observation: Observation = {
      kind: "tool_result",
      tool: String(action?.tool),
      callId,
      result,
      now: s.now,
    };
    if (terminated) {
      const verdict = this.evaluate();
      return {
        observation,
        reward: verdict.score,
        terminated,
        truncated: false,
        info: { now: s.now, verdict },
      };
    }
    return { observation, reward: 0, terminated: false, truncated: false, info: { now: s.now } };
  }

  private takeTransientFault(tool: string): boolean {
    const list = this.state.faults.transientUnavailable;
    const i = list.indexOf(tool);
    if (i < 0) return false;
    list.splice(i, 1);
    return true;
  }

  private rateLimited(tool: string): number | null {
    const rl = this.state.faults.rateLimit;
    if (rl.limit <= 0 || !RATE_LIMITED_TOOLS.has(tool)) return null;
    const now = this.state.now;
    rl.calls = rl.calls.filter((t) => t > now - rl.window);
    if (rl.calls.length >= rl.limit) return Math.max(1, Math.ceil(rl.calls[0] + rl.window - now));
    rl.calls.push(now);
    return null;
  }

  /** Moves virtual time forward and fires every background job that falls due. */
  private advance(seconds: number): void {
    const s = this.state;
    s.now += seconds;
    for (let job = this.scheduler.takeNextDue(s.now); job; job = this.scheduler.takeNextDue(s.now)) {
      if (job.owner !== s.episode) {
        s.strayJobs++;
        continue;
      }
      const data = job.data as JsonObject;
      if (job.kind === "order.ship") {
        const order = s.entities.orders.find((o) => o.order_id === data.order_id);
        if (order && (order.status === "placed" || order.status === "packed")) {
          order.status = "shipped";
          s.entities.shipments.push({
            shipment_id: `SH-${++s.counters.shipment}${this.rng.id(5).toUpperCase()}`,
            order_id: order.order_id,
            carrier: "DHL",
            tracking: `1Z${this.rng.id(8).toUpperCase()}`,
            status: "in_transit",
            address_id: order.address_id,
            shipped_at: job.due,
          });
        }
      } else if (job.kind === "refund.visible") {
        const refund = s.entities.refunds.find((r) => r.refund_id === data.refund_id);
        if (refund) refund.visible = true;
      }
    }
  }

  /** Harness time control: let `seconds` of virtual time pass (jobs fire), as if the last call took longer. */
  elapse(seconds: number): void {
    if (!(seconds >= 0)) throw new ProvingError("bad_elapse", "internal", `cannot elapse ${seconds} s`);
    this.advance(seconds);
  }

  /** Harness time control: move a pending job `seconds` later; returns its new id (undefined if not pending). */
  deferJob(id: number, seconds: number): number | undefined {
    const job = this.scheduler.pending().find((j) => j.id === id);
    if (!job) return undefined;
    this.scheduler.cancel(id);
    return this.scheduler.schedule(job.owner, job.due + seconds, job.kind, job.data).id;
  }

  delivered(observation: Observation): void {
    const last = this.state.trace[this.state.trace.length - 1];
    if (last && observation.kind === "tool_result") last.result = cloneJson(observation.result);
  }

  evaluate(): Verdict {
    const s = this.state;
    return verifyOrderOps({
      task: s.task,
      entities: s.entities,
      effects: this.effects.all(),
      trace: s.trace,
    });
  }

  saveState(): JsonValue {
    const s = this.state;
    s.scheduler = this.scheduler.saveState();
    s.rng = this.rng.saveState();
    s.effects = this.effects.saveState();
    return cloneJson(s) as unknown as JsonValue;
  }

  view(): Readonly<JsonObject> {
    const s = this.state;
    return { now: s.now, ended: s.ended, ...(s.entities as unknown as JsonObject) };
  }

  stateHash(): string {
    const saved = this.saveState() as unknown as OrderOpsState;
    const { trace: _trace, episode: _episode, ...rest } = saved;
    return hashJson(rest);
  }

  pendingJobs() {
    return this.scheduler.pending();
  }

  leakedJobs(): number {
    return this.state.strayJobs;
  }
}
