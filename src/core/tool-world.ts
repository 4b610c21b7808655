import type {
  Action,
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
  ToolResult,
  Verdict,
} from "./contracts.ts";
import { type Effect, EffectLog } from "./effect-log.ts";
import { ProvingError } from "./errors.ts";
import { CanonicalText, canonicalBytes, canonicalOnce, hashJson } from "./hash.ts";
import { cloneJson, type JsonObject, type JsonValue } from "./json.ts";
import { Rng, type RngState } from "./rng.ts";
import { type Job, Scheduler, type SchedulerState } from "./scheduler.ts";
import { parseToolArgs, type ToolDef, toolError } from "./tool.ts";

/** One tool call as the world saw it, with the result the agent received. */
export interface TraceEntry {
  step: number;
  /** Virtual time when the call arrived. */
  t: number;
  tool: string;
  callId: string;
  args: JsonObject;
  result: ToolResult;
}

/** What a tool world keeps besides its entities: plain data, saved whole by `saveState`. */
export interface ToolWorldState<E = unknown, F = unknown> {
  task: Task;
  seed: number;
  /** Owner of the background jobs this episode schedules. */
  episode: string;
  now: number;
  ended: boolean;
  /** Virtual seconds every tool call takes (a successful `wait` takes only its own seconds). */
  latency: number;
  entities: E;
  /** The world's own service behaviour in this episode (what its spec defines per task family). */
  faults: F;
  /** What the task's rules at the dispatch point remember (their histories; see `DispatchRules`). */
  rules: JsonValue;
  /** Counters behind generated ids. */
  counters: Record<string, number>;
  scheduler: SchedulerState;
  rng: RngState;
  effects: Effect[];
  trace: TraceEntry[];
  /** Jobs that fired for another episode (a leak the runner reports). */
  strayJobs: number;
}

/** What a tool may do to the world while it runs. */
export interface WorldToolContext<S extends ToolWorldState> {
  readonly state: S;
  /** Index of the current tool call in the world's trace. */
  readonly step: number;
  schedule(due: number, kind: string, data: JsonObject): void;
  logEffect(effect: Omit<Effect, "seq" | "t" | "step">): void;
  /** Extra virtual seconds this call takes beyond the latency (used by `wait`). */
  spend(seconds: number): void;
  /** A fresh id: `PREFIX-<counter><random>`. */
  newId(prefix: string, counter: string): string;
}

/** A world's tools, typed against its context (each tool has its own argument type). */
// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous table of tools, each typed at its definition
export type WorldTools<S extends ToolWorldState> = readonly ToolDef<WorldToolContext<S>, any>[];

/**
 * Harness rules at a tool world's dispatch point: the one fault mechanism (faults are rules), for the
 * faults a task declares (`taskRules` in src/harness builds it). They see every call whose tool exists
 * and whose arguments parsed, before the tool runs. A call a rule refuses gets the rule's answer
 * instead of the tool's and is otherwise a call like any other: it is traced, takes the world's
 * latency and counts in the step indices the verifier reports. What the rules remember is data in
 * `state.rules`, saved with the state.
 */
export interface DispatchRules<S extends ToolWorldState> {
  /** At reset: checks the task's rules (a config error for a bad one) and sets up `state.rules`. */
  start(state: S): void;
  /** One parsed call: the rules refuse it (their answer) or let it run (`run()`); `ctx.spend` adds time. */
  call(action: Action, ctx: WorldToolContext<S>, run: () => ToolResult): ToolResult;
  /** The agent received `result` for the call at trace index `step` (a layer outside changed it). */
  delivered(state: S, step: number, result: ToolResult): void;
  /** On restore: brings a state saved by an earlier version of the world up to date. */
  upgrade(state: S): void;
}

/** Everything that makes one tool world different from another. */
export interface ToolWorldDefinition<S extends ToolWorldState> {
  spec: EnvSpec;
  tools: WorldTools<S>;
  /** The faults the task declares, as harness rules applied at the dispatch point (none when absent). */
  rules?: DispatchRules<S>;
  /** The start state of an episode. Pure. */
  initialState(task: Task, seed: number, episode: string): S;
  /** Background jobs due from the start (e.g. a decision requested before the episode). */
  startJobs?(state: S): { due: number; kind: string; data: JsonObject }[];
  /** The `context` of the first observation (it names what the task is about). */
  taskContext(state: S): JsonObject;
  /** Carries out a background job of this episode. */
  runJob(state: S, job: Job, rng: Rng): void;
  /** The frozen verifier. */
  verify(state: S, effects: readonly Effect[]): Verdict;
}

/**
 * The bookkeeping every episode of a tool world starts with (time 0, no jobs, an RNG seeded from the
 * seed, empty effect log and trace); a world adds its entities, faults and counters. Checks the task
 * is the world's.
 */
export function episodeStart(world: string, task: Task, seed: number, episode: string, latency: number) {
  if (task.world !== world) {
    throw new ProvingError("wrong_world", `task ${task.id} is for ${task.world}, not ${world}`);
  }
  return {
    task,
    seed,
    episode,
    now: 0,
    ended: false,
    latency,
    scheduler: { nextId: 1, jobs: [] } as SchedulerState,
    rng: Rng.seeded(seed, `${world}/episode`).saveState(),
    effects: [] as Effect[],
    trace: [] as TraceEntry[],
    rules: null as JsonValue,
    strayJobs: 0,
  };
}

/** What a tool world shows harness rules (`view()`): the time, whether the episode ended, the entities. */
export function toolWorldView(s: ToolWorldState): JsonObject {
  return { now: s.now, ended: s.ended, ...(s.entities as JsonObject) };
}

/** The context tools run with: one per loaded state, its step fields set before each call. */
class StepContext<S extends ToolWorldState> implements WorldToolContext<S> {
  step = 0;
  extra = 0;

  constructor(
    readonly state: S,
    private readonly scheduler: Scheduler,
    private readonly rng: Rng,
    private readonly effects: EffectLog,
  ) {}

  schedule(due: number, kind: string, data: JsonObject): void {
    this.scheduler.schedule(this.state.episode, due, kind, data);
  }

  logEffect(effect: Omit<Effect, "seq" | "t" | "step">): void {
    this.effects.append({ t: this.state.now, step: this.step, ...effect });
  }

  spend(seconds: number): void {
    this.extra += seconds;
  }

  newId(prefix: string, counter: string): string {
    const counters = this.state.counters;
    counters[counter] = (counters[counter] ?? 0) + 1;
    return `${prefix}-${counters[counter]}${this.rng.id(4).toUpperCase()}`;
  }
}

const TASK_TEXT = new WeakMap<Task, CanonicalText>();

/** The canonical JSON of a task, written once per task object (tasks are never mutated). */
function taskText(task: Task): CanonicalText {
  let text = TASK_TEXT.get(task);
  if (text === undefined) {
    text = CanonicalText.fromBytes(canonicalBytes({ ...task, params: canonicalOnce(task.params) }));
    TASK_TEXT.set(task, text);
  }
  return text;
}

/**
 * A world made of typed tools over a data-only state: the Environment contract, virtual time, the
 * trial-owned scheduler, the seeded RNG, the effect log and the tool trace, once for every world.
 * Each call: a closed episode, an unknown tool or bad arguments answer a coded error; then the
 * task's rules (`DispatchRules`: its faults) may refuse it; then the tool. Afterwards time moves by
 * the latency and due jobs fire (a job of another episode is counted as a leak, never run). It also
 * offers virtual time control to harness layers (`elapse`, `deferJob`).
 */
export class ToolWorld<S extends ToolWorldState> implements Environment, Inspection, Delivery, TimeControl {
  readonly spec: EnvSpec;
  /** State, jobs and time live in this process: a tool world offers inspection, deliveries and time control. */
  readonly capabilities: EnvironmentCapabilities = { inspection: this, delivery: this, timeControl: this };
  private readonly toolsByName: ReadonlyMap<string, WorldTools<S>[number]>;
  private s: S | undefined;
  private scheduler = new Scheduler();
  private rng = Rng.seeded(0);
  private effects = new EffectLog();
  private ctx: StepContext<S> | undefined;

  constructor(private readonly def: ToolWorldDefinition<S>) {
    this.spec = def.spec;
    this.toolsByName = new Map(def.tools.map((t) => [t.name, t]));
  }

  /** Loads a saved state (from `saveState`) into this instance; returns it. */
  restore(saved: JsonValue): this {
    const state = cloneJson(saved) as unknown as S;
    this.def.rules?.upgrade(state);
    this.load(state);
    return this;
  }

  private load(state: S): void {
    this.s = state;
    this.scheduler = Scheduler.fromState(state.scheduler);
    this.rng = Rng.fromState(state.rng);
    this.effects = new EffectLog(state.effects);
    this.ctx = new StepContext(state, this.scheduler, this.rng, this.effects);
  }

  protected get state(): S {
    if (!this.s) throw new ProvingError("not_reset", `${this.spec.world}: used before reset`);
    return this.s;
  }

  async reset(opts: ResetOptions): Promise<Observation> {
    const episode = opts.episodeId ?? `${opts.task.id}#${opts.seed}`;
    this.load(this.def.initialState(opts.task, opts.seed, episode));
    this.def.rules?.start(this.state);
    for (const job of this.def.startJobs?.(this.state) ?? []) {
      this.scheduler.schedule(episode, job.due, job.kind, job.data);
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
      context: this.def.taskContext(s),
      tools: this.spec.tools,
    };
  }

  async step(action: Action): Promise<StepResult> {
    const s = this.state;
    const stepIndex = s.trace.length;
    const startedAt = s.now;
    const name = String(action?.tool);
    const tool = this.toolsByName.get(action?.tool);
    let extra = 0;
    let result: ToolResult;
    if (s.ended) {
      result = toolError("episode_ended", "the episode has ended; reset to start another");
    } else if (!tool) {
      result = toolError("invalid_argument", `unknown tool "${name.slice(0, 80)}"`);
    } else {
      const parsed = parseToolArgs(tool, action.args);
      if (!parsed.ok) {
        result = { ok: false, error: parsed.error };
      } else {
        const ctx = this.ctx!;
        ctx.step = stepIndex;
        ctx.extra = 0;
        const rules = this.def.rules;
        result = rules
          ? rules.call(action, ctx, () => tool.run(parsed.value, ctx))
          : tool.run(parsed.value, ctx);
        extra = ctx.extra;
      }
    }
    const terminated = s.ended && result.ok && this.spec.terminalTools.includes(name);
    this.advance((name === "wait" && result.ok ? 0 : s.latency) + extra);
    const callId = action?.callId ?? String(stepIndex);
    s.trace.push({ step: stepIndex, t: startedAt, tool: name, callId, args: action?.args ?? {}, result });
    const observation: Observation = { kind: "tool_result", tool: name, callId, result, now: s.now };
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

  /** Moves virtual time forward and fires every background job that falls due. */
  private advance(seconds: number): void {
    const s = this.state;
    s.now += seconds;
    for (let job = this.scheduler.takeNextDue(s.now); job; job = this.scheduler.takeNextDue(s.now)) {
      if (job.owner !== s.episode) s.strayJobs++;
      else this.def.runJob(s, job, this.rng);
    }
  }

  /** Harness time control: let `seconds` of virtual time pass (jobs fire), as if the last call took longer. */
  elapse(seconds: number): void {
    if (!(seconds >= 0)) throw new ProvingError("bad_elapse", `cannot elapse ${seconds} s`);
    this.advance(seconds);
  }

  /** Harness time control: move a pending job `seconds` later; returns its new id (undefined if not pending). */
  deferJob(id: number, seconds: number): number | undefined {
    return this.scheduler.defer(id, seconds);
  }

  delivered(observation: Observation): void {
    const s = this.state;
    const last = s.trace[s.trace.length - 1];
    if (last && observation.kind === "tool_result") {
      last.result = cloneJson(observation.result);
      this.def.rules?.delivered(s, last.step, last.result);
    }
  }

  evaluate(): Verdict {
    return this.def.verify(this.state, this.effects.all());
  }

  saveState(): JsonValue {
    const s = this.state;
    s.scheduler = this.scheduler.saveState();
    s.rng = this.rng.saveState();
    s.effects = this.effects.saveState();
    return cloneJson(s) as unknown as JsonValue;
  }

  view(): Readonly<JsonObject> {
    return toolWorldView(this.state);
  }

  stateHash(): string {
    const s = this.state;
    // What saveState() would give, minus trace and episode, hashed in place: no deep copy.
    const { trace: _trace, episode: _episode, ...rest } = s;
    const hashed = {
      ...rest,
      scheduler: this.scheduler.saveState(),
      rng: this.rng.saveState(),
      effects: this.effects.all(),
      // the task never changes: its canonical JSON is written once per task object
      task: taskText(s.task),
    };
    return hashJson(hashed);
  }

  pendingJobs(): readonly Job[] {
    return this.scheduler.pending();
  }

  leakedJobs(): number {
    return this.state.strayJobs;
  }
}
