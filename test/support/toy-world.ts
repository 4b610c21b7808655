/**
 * `toy@1`: a tiny world for runner and conformance tests, with switchable bugs.
 *
 * A counter must be brought to a target and the episode closed with `finish`. Tools: `peek` (count,
 * target, whether a bonus is pending), `add {n: 1..5}`, `wait {seconds: 1..60}`, `finish {note?}`.
 * Family `reach`: add up to the target. Family `wait-bonus`: a background job adds 2 at `bonusAt`
 * seconds, so an agent that adds everything at once overshoots. Verdict: passed when count = target;
 * violation `overshoot` when the count went past it.
 *
 * Bugs (each one a way a world can be broken, for tests that must catch it): see `ToyBugs`.
 */
import { z } from "zod";
import type {
  Action,
  AdmissibleAction,
  Agent,
  AgentAction,
  Environment,
  EnvironmentCapabilities,
  EnvSpec,
  Inspection,
  Observation,
  ResetOptions,
  StepResult,
  Task,
  TaskRequest,
  ToolResult,
  Verdict,
} from "../../src/core/contracts.ts";
import { hashJson } from "../../src/core/hash.ts";
import { cloneJson, type JsonObject, type JsonValue } from "../../src/core/json.ts";
import { Registry, type WorldDefinition } from "../../src/core/registry.ts";
import { Scheduler, type SchedulerState } from "../../src/core/scheduler.ts";
import { defineTool, parseToolArgs, type ToolDef, toolDescriptor, toolError } from "../../src/core/tool.ts";

export interface ToyBugs {
  /** `step` throws on the second call of an episode (a world crash). */
  stepThrows?: boolean;
  /** `reset` throws. */
  resetThrows?: boolean;
  /** `reset` leaves a pending job owned by another episode. */
  foreignJobOnReset?: boolean;
  /** `reset` keeps the previous episode's jobs. */
  resetKeepsJobs?: boolean;
  /** Instances share module state that ends up in the world state (a fresh instance differs). */
  sharedStateLeak?: boolean;
  /** `add` schedules jobs owned by another episode, which then fire during this one. */
  misownedJobs?: boolean;
  /** `peek` answers with a random nonce. */
  nondeterministic?: boolean;
  /** `saveState` forgets the pending jobs. */
  saveDropsJobs?: boolean;
  /** `add` accepts any arguments (coerces `n`). */
  acceptsBadArgs?: boolean;
  /** `add` throws on arguments it cannot read. */
  throwsOnBadArgs?: boolean;
}

export const TOY_ID = "toy@1";

interface ToyState {
  task: Task;
  seed: number;
  episode: string;
  now: number;
  count: number;
  target: number;
  ended: boolean;
  /** Step at which the count first went past the target, or -1. */
  overshootAt: number;
  trace: { tool: string; callId: string; args: JsonValue; result: ToolResult }[];
  scheduler: SchedulerState;
  strayJobs: number;
  shared: number;
}

interface ToyCtx {
  state: ToyState;
  step: number;
  bugs: ToyBugs;
  schedule(owner: string, due: number, kind: string): void;
  spend(seconds: number): void;
}

let sharedCounter = 0;

const TOOLS: readonly ToolDef<ToyCtx, z.ZodType>[] = [
  defineTool({
    name: "peek",
    description: "Read the counter, its target and whether a bonus is still to come.",
    input: z.object({}).strict(),
    run(_args, ctx: ToyCtx): ToolResult {
      const s = ctx.state;
      const pending = Scheduler.fromState(s.scheduler)
        .pending()
        .some((j) => j.kind === "bonus");
      return {
        ok: true,
        count: s.count,
        target: s.target,
        bonus_pending: pending,
        ...(ctx.bugs.nondeterministic ? { nonce: Math.random() } : {}),
      };
    },
  }),
  defineTool({
    name: "add",
    description: "Add n (1..5) to the counter.",
    input: z.object({ n: z.number().int().min(1).max(5).describe("How much to add.") }).strict(),
    run(args: { n: number }, ctx: ToyCtx): ToolResult {
      const s = ctx.state;
      s.count += args.n;
      if (s.count > s.target && s.overshootAt < 0) s.overshootAt = ctx.step;
      if (ctx.bugs.misownedJobs) ctx.schedule("stale-episode", s.now, "noop");
      return { ok: true, count: s.count };
    },
  }),
  defineTool({
    name: "wait",
    description: "Let 1..60 virtual seconds pass.",
    input: z.object({ seconds: z.number().int().min(1).max(60) }).strict(),
    run(args: { seconds: number }, ctx: ToyCtx): ToolResult {
      ctx.spend(args.seconds);
      return { ok: true, now: ctx.state.now + args.seconds };
    },
  }),
  defineTool({
    name: "finish",
    description: "Close the episode.",
    input: z.object({ note: z.string().max(100).optional() }).strict(),
    run(_args, ctx: ToyCtx): ToolResult {
      ctx.state.ended = true;
      return { ok: true, count: ctx.state.count };
    },
  }),
];
const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

export function toyVerdict(s: Pick<ToyState, "count" | "target" | "overshootAt" | "ended">): Verdict {
  const reached = s.count === s.target;
  const violations =
    s.overshootAt >= 0
      ? [{ code: "overshoot", step: s.overshootAt, detail: `count ${s.count} > ${s.target}` }]
      : [];
  return {
    passed: reached && s.ended && violations.length === 0,
    score: reached ? 1 : 0,
    checks: [
      { name: "reached_target", passed: reached, detail: `count ${s.count}, target ${s.target}` },
      { name: "finished", passed: s.ended, detail: s.ended ? "finished" : "not finished" },
    ],
    violations,
    verifier: "verify.toy@1",
  };
}

/**
 * The toy's admissible actions (the same in every state: nothing in its tools needs an id): `peek`,
 * `add n` for 1..5, two waits and `finish` (its optional note left out). The known-good agent's every
 * action is among them.
 */
export const TOY_ADMISSIBLE: readonly AdmissibleAction[] = [
  { tool: "peek", args: {} },
  ...[1, 2, 3, 4, 5].map((n) => ({ tool: "add", args: { n } })),
  { tool: "wait", args: { seconds: 10 } },
  { tool: "wait", args: { seconds: 60 } },
  { tool: "finish", args: {} },
];

export class ToyWorld implements Environment, Inspection {
  readonly spec: EnvSpec;
  readonly capabilities: EnvironmentCapabilities = {
    inspection: this,
    admissible: {
      admissibleActions: () => TOY_ADMISSIBLE.map((a) => ({ tool: a.tool, args: { ...a.args } })),
    },
  };
  private s: ToyState | undefined;
  private scheduler = new Scheduler();

  constructor(
    private readonly bugs: ToyBugs = {},
    id = TOY_ID,
  ) {
    this.spec = {
      id,
      world: id,
      tools: TOOLS.map(toolDescriptor),
      terminalTools: ["finish"],
      verifier: "verify.toy@1",
    };
  }

  static fromState(saved: JsonValue, bugs: ToyBugs = {}, id = TOY_ID): ToyWorld {
    const w = new ToyWorld(bugs, id);
    w.s = cloneJson(saved) as unknown as ToyState;
    w.scheduler = Scheduler.fromState(w.s.scheduler);
    return w;
  }

  private get state(): ToyState {
    if (!this.s) throw new Error("toy: step before reset");
    return this.s;
  }

  async reset(opts: ResetOptions): Promise<Observation> {
    if (this.bugs.resetThrows) throw new Error("toy: reset exploded");
    const episode = opts.episodeId ?? `${opts.task.id}#${opts.seed}`;
    const p = opts.task.params as { target: number; bonusAt: number | null };
    if (!this.bugs.resetKeepsJobs) this.scheduler = new Scheduler();
    if (p.bonusAt !== null) this.scheduler.schedule(episode, p.bonusAt, "bonus");
    if (this.bugs.foreignJobOnReset) this.scheduler.schedule("previous-episode", 1000, "noop");
    this.s = {
      task: opts.task,
      seed: opts.seed,
      episode,
      now: 0,
      count: 0,
      target: p.target,
      ended: false,
      overshootAt: -1,
      trace: [],
      scheduler: this.scheduler.saveState(),
      strayJobs: 0,
      shared: this.bugs.sharedStateLeak ? ++sharedCounter : 0,
    };
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
      context: { counter: "K-1" },
      tools: this.spec.tools,
    };
  }

  async step(action: Action): Promise<StepResult> {
    const s = this.state;
    if (this.bugs.stepThrows && s.trace.length >= 1) throw new Error("toy: step exploded");
    const stepIndex = s.trace.length;
    let extra = 0;
    let result: ToolResult;
    const tool = BY_NAME.get(action.tool);
    if (s.ended) result = toolError("episode_ended", "the episode has ended");
    else if (!tool) result = toolError("invalid_argument", `unknown tool "${action.tool}"`);
    else {
      const lax = this.bugs.acceptsBadArgs && tool.name === "add";
      const raw = action.args as unknown as Record<string, unknown>;
      if (this.bugs.throwsOnBadArgs && tool.name === "add" && typeof raw.n !== "number") {
        throw new TypeError(`cannot read n of ${JSON.stringify(raw)}`);
      }
      const parsed = lax
        ? { ok: true as const, value: { n: Number(raw?.n) || 1 } }
        : parseToolArgs(tool, action.args);
      if (!parsed.ok) result = { ok: false, error: parsed.error };
      else {
        const ctx: ToyCtx = {
          state: s,
          step: stepIndex,
          bugs: this.bugs,
          schedule: (owner, due, kind) => {
            this.scheduler.schedule(owner, due, kind);
            s.scheduler = this.scheduler.saveState();
          },
          spend: (seconds) => {
            extra += seconds;
          },
        };
        s.scheduler = this.scheduler.saveState();
        result = tool.run(parsed.value, ctx);
      }
    }
    this.advance(1 + extra);
    s.trace.push({ tool: action.tool, callId: action.callId, args: action.args ?? {}, result });
    const observation: Observation = {
      kind: "tool_result",
      tool: action.tool,
      callId: action.callId,
      result,
      now: s.now,
    };
    const terminated = s.ended && result.ok && action.tool === "finish";
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

  private advance(seconds: number): void {
    const s = this.state;
    s.now += seconds;
    for (let job = this.scheduler.takeNextDue(s.now); job; job = this.scheduler.takeNextDue(s.now)) {
      if (job.owner !== s.episode) {
        s.strayJobs++;
        continue;
      }
      if (job.kind === "bonus") {
        s.count += 2;
        if (s.count > s.target && s.overshootAt < 0) s.overshootAt = s.trace.length;
      }
    }
    s.scheduler = this.scheduler.saveState();
  }

  evaluate(): Verdict {
    return toyVerdict(this.state);
  }

  saveState(): JsonValue {
    const s = cloneJson(this.state);
    s.scheduler = this.bugs.saveDropsJobs
      ? { nextId: s.scheduler.nextId, jobs: [] }
      : this.scheduler.saveState();
    return s as unknown as JsonValue;
  }

  view(): Readonly<JsonObject> {
    const s = this.state;
    return { now: s.now, count: s.count, target: s.target, ended: s.ended };
  }

  stateHash(): string {
    const { trace: _t, episode: _e, ...rest } = this.saveState() as unknown as ToyState;
    return hashJson({
      ...rest,
      scheduler: { jobs: rest.scheduler.jobs.map(({ id: _id, owner: _o, ...j }) => j) },
    });
  }

  pendingJobs() {
    return this.scheduler.pending();
  }

  leakedJobs(): number {
    return this.state.strayJobs;
  }
}

function generateTask(req: TaskRequest, id: string): Task {
  if (req.family !== "reach" && req.family !== "wait-bonus")
    throw new Error(`toy: unknown family ${req.family}`);
  const target = 3 + req.difficulty + (Math.abs(req.seed) % 4);
  const bonusAt = req.family === "wait-bonus" ? 5 + req.difficulty * 3 : null;
  const content = { family: req.family, difficulty: req.difficulty, seed: req.seed, target, bonusAt };
  return {
    id: `toy/${req.family}/d${req.difficulty}/s${req.seed}`,
    world: id,
    family: req.family,
    difficulty: req.difficulty,
    tags: [req.family],
    params: { target, bonusAt, ...(req.params ?? {}) },
    split: req.split ?? "regression",
    seed: req.seed,
    instruction: `Bring counter K-1 to its target (peek to read it) and finish.`,
    generator: { template: "toy@1", ranges: { target: [4, 11] }, contentHash: hashJson(content) },
  };
}

/** A scripted agent from a function of (observation count, last result) → action. */
export function scriptedAgent(
  id: string,
  next: (turn: number, last: ToolResult | undefined) => AgentAction,
): Agent {
  return {
    id,
    start() {
      let turn = 0;
      return {
        async act(obs: Observation) {
          return next(turn++, obs.kind === "tool_result" ? obs.result : undefined);
        },
      };
    },
  };
}

/** Peeks, waits out a pending bonus, adds up to the target, finishes. */
export const goodToyAgent: Agent = {
  id: "good",
  start() {
    let target = 0;
    let count = 0;
    let bonus = false;
    return {
      async act(obs: Observation): Promise<AgentAction> {
        const r = obs.kind === "tool_result" && obs.result.ok ? (obs.result as JsonObject) : undefined;
        if (obs.kind === "task") return { tool: "peek", args: {} };
        if (r && obs.kind === "tool_result" && obs.tool === "peek") {
          target = Number(r.target);
          count = Number(r.count);
          bonus = r.bonus_pending === true;
        } else if (r && typeof r.count === "number") count = r.count;
        if (bonus && obs.kind === "tool_result" && obs.tool !== "wait")
          return { tool: "wait", args: { seconds: 60 } };
        if (bonus) {
          bonus = false;
          return { tool: "peek", args: {} };
        }
        if (count < target) return { tool: "add", args: { n: Math.min(5, target - count) } };
        return { tool: "finish", args: {} };
      },
    };
  },
};

/** Adds 5 until past the target, then finishes: always overshoots. */
export const overshooter: Agent = {
  id: "overshooter",
  start() {
    let target = Number.POSITIVE_INFINITY;
    return {
      async act(obs: Observation): Promise<AgentAction> {
        if (obs.kind === "task") return { tool: "peek", args: {} };
        const r = obs.result.ok ? (obs.result as JsonObject) : {};
        if (typeof r.target === "number") target = r.target;
        return Number(r.count) > target ? { tool: "finish", args: {} } : { tool: "add", args: { n: 5 } };
      },
    };
  },
};

/** Finishes at once. */
export const quitter = scriptedAgent("quitter", () => ({ tool: "finish", args: {} }));

/** The toy world's definition, with the given bugs. */
export function toyWorld(bugs: ToyBugs = {}, id = TOY_ID): WorldDefinition {
  return {
    id,
    description: "a counter to bring to its target (test world)",
    verifier: "verify.toy@1",
    families: [
      { name: "reach", description: "add up to the target", difficulties: [1, 2, 3] },
      { name: "wait-bonus", description: "a bonus job adds 2 later", difficulties: [1, 2, 3] },
    ],
    generateTask: (req) => generateTask(req, id),
    create: () => new ToyWorld(bugs, id),
    restore: (state) => ToyWorld.fromState(state, bugs, id),
    policies: { good: goodToyAgent, overshooter, quitter },
    knownGood: "good",
    expectedFailures: {
      overshooter: { families: ["reach", "wait-bonus"], codes: ["overshoot"] },
      quitter: { families: ["reach", "wait-bonus"], codes: [] },
    },
  };
}

/** A registry holding the toy world (with its bugs) and its state factory. */
export function toyRegistry(bugs: ToyBugs = {}, id = TOY_ID): Registry {
  const registry = new Registry();
  registry.registerWorld(toyWorld(bugs, id));
  return registry;
}
