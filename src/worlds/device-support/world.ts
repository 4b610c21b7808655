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
import { CanonicalText, canonicalBytes, canonicalOnce, constantArray, hashJson } from "../../core/hash.ts";
import { cloneJson, type JsonObject, type JsonValue } from "../../core/json.ts";
import { Rng } from "../../core/rng.ts";
import { Scheduler } from "../../core/scheduler.ts";
import { parseToolArgs, toolDescriptor, toolError } from "../../core/tool.ts";
import { type DeviceSupportState, VERIFIER_ID, WORLD_ID } from "./state.ts";
import type { DeviceSupportParams } from "./tasks.ts";
import { RATE_LIMITED_TOOLS, TOOLS, type ToolContext } from "./tools.ts";
import { verifyDeviceSupport } from "./verifier.ts";

const TOOL_BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));
/** Constant: every first observation carries it, and hashes copy its canonical JSON instead of walking it. */
export const DEVICE_SUPPORT_TOOLS: readonly ToolDescriptor[] = constantArray(TOOLS.map(toolDescriptor));

export const DEVICE_SUPPORT_SPEC: EnvSpec = {
  id: WORLD_ID,
  world: WORLD_ID,
  tools: DEVICE_SUPPORT_TOOLS as ToolDescriptor[],
  terminalTools: ["close_case"],
  verifier: VERIFIER_ID,
};

const TASK_TEXT = new WeakMap<Task, CanonicalText>();

/**
 * The canonical JSON of a task, written once per task object (a task is never mutated), its params
 * taken from the text the generator already wrote for the content hash.
 */
function taskText(task: Task): CanonicalText {
  let text = TASK_TEXT.get(task);
  if (text === undefined) {
    text = CanonicalText.fromBytes(canonicalBytes({ ...task, params: canonicalOnce(task.params) }));
    TASK_TEXT.set(task, text);
  }
  return text;
}

/** Builds the start state of an episode from a task and a seed. Pure. */
export function initialState(task: Task, seed: number, episode: string): DeviceSupportState {
  if (task.world !== WORLD_ID) {
    throw new ProvingError("wrong_world", "config", `task ${task.id} is for ${task.world}, not ${WORLD_ID}`);
  }
  const p = task.params as unknown as DeviceSupportParams;
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
      devices: cloneJson(p.devices),
      cases: cloneJson(p.cases),
      approvals: cloneJson(p.approvals),
      replacements: [],
      receipts: [],
      messages: [],
      escalations: [],
    },
    faults: {
      firstCreate: p.firstCreate,
      receiptDelay: p.receiptDelay,
      unverifiableAfterLoss: p.unverifiable,
      firstCreateDone: false,
      outage: false,
      rateLimit: { limit: p.rateLimit.limit, window: p.rateLimit.window, calls: [] },
      transientUnavailable: [...p.transientUnavailable],
    },
    counters: { request: 0, receipt: 0, message: 0, ticket: 0 },
    scheduler: { nextId: 1, jobs: [] },
    rng: Rng.seeded(seed, `${WORLD_ID}/episode`).saveState(),
    effects: [],
    trace: [],
    strayJobs: 0,
  };
}

/**
 * The context tools run with. One per loaded state, reused across steps (the world sets `step` and
 * clears `extra` before each call), so a step allocates no closures.
 */
class StepContext implements ToolContext {
  step = 0;
  /** Seconds `spend` asked for during the current call. */
  extra = 0;

  constructor(
    readonly state: DeviceSupportState,
    private readonly scheduler: Scheduler,
    private readonly rng: Rng,
    private readonly effects: EffectLog,
  ) {}

  schedule(due: number, kind: string, data: JsonObject): void {
    this.scheduler.schedule(this.state.episode, due, kind, data);
  }

  logEffect(effect: Parameters<ToolContext["logEffect"]>[0]): void {
    this.effects.append({ t: this.state.now, step: this.step, ...effect });
  }

  spend(seconds: number): void {
    this.extra += seconds;
  }

  newId(prefix: string, counter: keyof DeviceSupportState["counters"]): string {
    return `${prefix}-${++this.state.counters[counter]}${this.rng.id(4).toUpperCase()}`;
  }
}

/** The device-support world (spec: shared/spec/device-support.md). */
export class DeviceSupportWorld implements Environment {
  readonly spec: EnvSpec = DEVICE_SUPPORT_SPEC;
  private s: DeviceSupportState | undefined;
  private scheduler = new Scheduler();
  private rng = Rng.seeded(0);
  private effects = new EffectLog();
  /** What tools run with; rebuilt on load, its step fields set before each call. */
  private ctx: StepContext | undefined;

  static fromState(saved: JsonValue): DeviceSupportWorld {
    const world = new DeviceSupportWorld();
    world.load(cloneJson(saved) as unknown as DeviceSupportState);
    return world;
  }

  private load(state: DeviceSupportState): void {
    this.s = state;
    this.scheduler = Scheduler.fromState(state.scheduler);
    this.rng = Rng.fromState(state.rng);
    this.effects = new EffectLog(state.effects);
    this.ctx = new StepContext(state, this.scheduler, this.rng, this.effects);
  }

  private get state(): DeviceSupportState {
    if (!this.s) throw new ProvingError("not_reset", "internal", "device-support: step before reset");
    return this.s;
  }

  async reset(opts: ResetOptions): Promise<Observation> {
    const episode = opts.episodeId ?? `${opts.task.id}#${opts.seed}`;
    this.load(initialState(opts.task, opts.seed, episode));
    const p = opts.task.params as unknown as DeviceSupportParams;
    for (const [case_id, d] of Object.entries(p.decisions)) {
      if (!d.onRequest) this.scheduler.schedule(episode, d.after, "approval.decide", { case_id });
    }
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
      context: { case_id: (s.task.params as unknown as DeviceSupportParams).case_id },
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
      result = toolError("invalid_argument", `unknown tool "${String(action?.tool)}"`);
    } else {
      const parsed = parseToolArgs(tool, action.args);
      if (!parsed.ok) {
        result = { ok: false, error: parsed.error };
      } else if (this.takeTransientFault(tool.name)) {
        result = toolError("unavailable", `${tool.name} is temporarily unavailable`, true);
      } else {
        const limited = this.rateLimited(tool.name);
        if (limited !== null) {
          result = {
            ok: false,
            error: {
              code: "rate_limited",
              message: `too many calls; retry after ${limited} s`,
              retryable: true,
            },
          };
          (result.error as unknown as JsonObject).retry_after = limited;
        } else {
          const ctx = this.ctx!;
          ctx.step = stepIndex;
          ctx.extra = 0;
          result = tool.run(parsed.value, ctx);
          extra += ctx.extra;
        }
      }
    }
    const terminated = s.ended && result.ok && action.tool === "close_case";
    this.advance((tool?.name === "wait" && result.ok ? 0 : s.latency) + extra);
    s.trace.push({
      step: stepIndex,
      t: startedAt,
      tool: String(action?.tool),
      callId: action?.callId ?? String(stepIndex),
      args: action?.args ?? {},
      result,
    });
    const observation: Observation = {
      kind: "tool_result",
      tool: String(action?.tool),
      callId: action?.callId ?? String(stepIndex),
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

  /** Seconds to wait before the call is allowed, or null when it may go ahead (and is counted). */
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
      if (job.kind === "approval.decide") {
        const case_id = data.case_id as string;
        const d = (s.task.params as unknown as DeviceSupportParams).decisions[case_id];
        if (d) {
          s.entities.approvals[case_id] = d.conditions
            ? { status: d.status, conditions: { ...d.conditions } }
            : { status: d.status };
        }
      } else if (job.kind === "receipt.visible") {
        const receipt = s.entities.receipts.find((r) => r.receipt_id === data.receipt_id);
        if (receipt) receipt.visible = true;
      }
    }
  }

  delivered(observation: Observation): void {
    const last = this.state.trace[this.state.trace.length - 1];
    if (last && observation.kind === "tool_result") last.result = observation.result;
  }

  evaluate(): Verdict {
    const s = this.state;
    return verifyDeviceSupport({
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
    const s = this.state;
    // What saveState() would give, minus trace and episode, hashed in place: no deep copy.
    const { trace: _trace, episode: _episode, ...rest } = s;
    rest.scheduler = this.scheduler.saveState();
    rest.rng = this.rng.saveState();
    rest.effects = this.effects.all() as DeviceSupportState["effects"];
    // The task never changes: its canonical JSON is written once per task object, not per hash.
    (rest as unknown as { task: CanonicalText }).task = taskText(s.task);
    return hashJson(rest);
  }

  pendingJobs() {
    return this.scheduler.pending();
  }

  leakedJobs(): number {
    return this.state.strayJobs;
  }
}
