/**
 * A small world with deliberate isolation bugs, for the honest-runner tests. Each defect is a way a
 * real world leaks one episode into another:
 *
 * - `keeps-receipts`: reset leaves the previous episode's receipts in the state;
 * - `keeps-jobs`: reset leaves the previous episode's scheduled jobs pending;
 * - `hidden-jobs`: reset hides the previous episode's jobs (not pending, not hashed) and fires them
 *   later, into whatever episode is running then;
 * - `late-timer`: finishing arms a real timer that writes a receipt after the episode ended;
 * - `shared-db`: receipts live in a map shared by every instance (one agent's write can satisfy
 *   another's test);
 * - `none`: no defect.
 *
 * The world records the ground truth (which episodes really were dirty) so a test can check the runner
 * caught exactly those. Tools: `schedule_receipt` (a job, due after `params.delay` s), `issue_receipt`,
 * `wait {seconds}`, `finish` (terminal). Passing = the episode ends with a receipt of its own (for
 * `shared-db`: any receipt in the account's shared record, which is the trap).
 */
import type {
  Action,
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
  ToolDescriptor,
  ToolResult,
  Verdict,
} from "../../../src/core/contracts.ts";
import { hashJson } from "../../../src/core/hash.ts";
import type { JsonObject, JsonValue } from "../../../src/core/json.ts";
import { Registry, type WorldDefinition } from "../../../src/core/registry.ts";
import { Scheduler } from "../../../src/core/scheduler.ts";

export type Defect = "none" | "keeps-receipts" | "keeps-jobs" | "hidden-jobs" | "late-timer" | "shared-db";

export const LEAKY_ID = "leaky@1";

/** What really happened, by episode (trial) id: written by the world, read by tests. */
export interface GroundTruth {
  /** Episodes whose reset carried state (receipts, jobs, shared records) from another episode. */
  dirtyStarts: Set<string>;
  /** Episodes into which a job of another episode fired. */
  foreignFired: Set<string>;
  /** Episodes whose timer wrote into the world after the episode ended. */
  lateFired: Set<string>;
  /** Episodes whose verdict read a shared receipt written by another episode. */
  crossed: Set<string>;
  /** Episodes that wrote into the shared map. */
  wroteShared: Set<string>;
  /** Instances built, and how many resets each one saw (by real episode). */
  instances: number;
}

interface Receipt {
  id: string;
  episode: string;
}

interface LeakyState {
  task: Task;
  episode: string;
  now: number;
  ended: boolean;
  receipts: Receipt[];
  counter: number;
  strays: number;
}

interface LeakyParams {
  delay: number;
  wait: number;
  account: string;
}

const TOOLS: ToolDescriptor[] = [
  { name: "schedule_receipt", description: "schedule a receipt", input_schema: { type: "object" } },
  { name: "issue_receipt", description: "issue a receipt now", input_schema: { type: "object" } },
  {
    name: "wait",
    description: "let time pass",
    input_schema: { type: "object", properties: { seconds: { type: "number" } } },
  },
  { name: "finish", description: "end the episode", input_schema: { type: "object" } },
];

const SPEC: EnvSpec = {
  id: LEAKY_ID,
  world: LEAKY_ID,
  tools: TOOLS,
  terminalTools: ["finish"],
  verifier: "verify.leaky@1",
};

const isRealEpisode = (episode: string) => episode.startsWith("t-");

export interface LeakyOptions {
  /** Delay of the `late-timer` callback, ms (default 0). */
  lateDelayMs?: number;
}

export class LeakyWorld implements Environment, Inspection {
  readonly spec = SPEC;
  readonly capabilities: EnvironmentCapabilities = { inspection: this };
  private s: LeakyState | undefined;
  private scheduler = new Scheduler();
  private hidden: { due: number; owner: string }[] = [];

  constructor(
    private readonly defect: Defect,
    private readonly truth: GroundTruth,
    private readonly shared: Map<string, Receipt[]>,
    private readonly opts: LeakyOptions = {},
  ) {
    truth.instances++;
  }

  private get state(): LeakyState {
    if (!this.s) throw new Error("leaky: step before reset");
    return this.s;
  }

  private get params(): LeakyParams {
    return this.state.task.params as unknown as LeakyParams;
  }

  async reset(opts: ResetOptions): Promise<Observation> {
    const episode = opts.episodeId ?? `${opts.task.id}#${opts.seed}`;
    const previous = this.s;
    let receipts: Receipt[] = [];
    let dirty = false;
    if (this.defect === "keeps-receipts" && previous && previous.receipts.length > 0) {
      receipts = previous.receipts;
      dirty = true;
    }
    if (this.defect === "keeps-jobs") {
      dirty ||= this.scheduler.pending().length > 0;
    } else if (this.defect === "hidden-jobs") {
      this.hidden.push(...this.scheduler.pending().map((j) => ({ due: j.due, owner: j.owner })));
      this.scheduler = new Scheduler();
    } else {
      this.scheduler = new Scheduler();
    }
    const account = (opts.task.params as unknown as LeakyParams).account;
    if (this.defect === "shared-db") {
      const rows = this.shared.get(account) ?? [];
      receipts = rows.map((r) => ({ ...r }));
      dirty ||= rows.some((r) => r.episode !== episode);
    }
    if (dirty && isRealEpisode(episode)) this.truth.dirtyStarts.add(episode);
    this.s = { task: opts.task, episode, now: 0, ended: false, receipts, counter: 0, strays: 0 };
    return this.observe();
  }

  observe(): Observation {
    const s = this.state;
    return {
      kind: "task",
      instruction: s.task.instruction,
      context: { wait: this.params.wait },
      tools: TOOLS,
    };
  }

  private addReceipt(episode: string): void {
    const s = this.state;
    const receipt = { id: `R-${++s.counter}`, episode };
    s.receipts.push(receipt);
    if (this.defect === "shared-db") {
      const rows = this.shared.get(this.params.account) ?? [];
      rows.push({ ...receipt });
      this.shared.set(this.params.account, rows);
      if (isRealEpisode(episode)) this.truth.wroteShared.add(episode);
    }
  }

  private advance(seconds: number): void {
    const s = this.state;
    s.now += seconds;
    for (let job = this.scheduler.takeNextDue(s.now); job; job = this.scheduler.takeNextDue(s.now)) {
      if (job.owner !== s.episode) {
        s.strays++;
        this.truth.foreignFired.add(s.episode);
      }
      this.addReceipt(job.owner);
    }
    const due = this.hidden.filter((j) => j.due <= s.now);
    this.hidden = this.hidden.filter((j) => j.due > s.now);
    for (const j of due) {
      // the bug: a job of an earlier episode fires into this one
      if (j.owner !== s.episode) {
        s.strays++;
        this.truth.foreignFired.add(s.episode);
      }
      this.addReceipt(j.owner);
    }
  }

  async step(action: Action): Promise<StepResult> {
    const s = this.state;
    let result: ToolResult = { ok: true };
    let terminated = false;
    if (s.ended) {
      result = { ok: false, error: { code: "episode_ended", message: "ended", retryable: false } };
    } else if (action.tool === "schedule_receipt") {
      this.scheduler.schedule(s.episode, s.now + this.params.delay, "receipt");
      this.advance(1);
    } else if (action.tool === "issue_receipt") {
      this.addReceipt(s.episode);
      this.advance(1);
    } else if (action.tool === "wait") {
      this.advance(Number(action.args.seconds ?? 1));
    } else if (action.tool === "finish") {
      s.ended = true;
      terminated = true;
      if (this.defect === "late-timer") {
        const episode = s.episode;
        setTimeout(() => {
          // a callback owned by the episode that has just ended
          this.s?.receipts.push({ id: "late", episode });
          this.truth.lateFired.add(episode);
        }, this.opts.lateDelayMs ?? 0);
      }
    } else {
      result = { ok: false, error: { code: "invalid_argument", message: "unknown tool", retryable: false } };
      this.advance(1);
    }
    const observation: Observation = {
      kind: "tool_result",
      tool: action.tool,
      callId: action.callId,
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

  evaluate(): Verdict {
    const s = this.state;
    let passed: boolean;
    if (this.defect === "shared-db") {
      const rows = this.shared.get(this.params.account) ?? [];
      passed = rows.length > 0;
      if (rows.some((r) => r.episode !== s.episode) && isRealEpisode(s.episode))
        this.truth.crossed.add(s.episode);
    } else {
      passed = s.receipts.some((r) => r.episode === s.episode);
    }
    return {
      passed,
      score: passed ? 1 : 0,
      checks: [{ name: "receipt", passed, detail: passed ? "a receipt exists" : "no receipt" }],
      violations: [],
      verifier: SPEC.verifier,
    };
  }

  saveState(): JsonValue {
    return JSON.parse(JSON.stringify({ s: this.state, scheduler: this.scheduler.saveState() })) as JsonValue;
  }

  view(): Readonly<JsonObject> {
    return { now: this.state.now, receipts: this.state.receipts.length };
  }

  /** Hash of the state without episode bookkeeping (episode id, job owners), as the contract asks. */
  stateHash(): string {
    const s = this.state;
    return hashJson({
      task: s.task.id,
      now: s.now,
      ended: s.ended,
      receipts: s.receipts.map((r) => r.id),
      counter: s.counter,
      jobs: this.scheduler.pending().map((j) => ({ due: j.due, kind: j.kind })),
    });
  }

  pendingJobs() {
    return this.scheduler.pending();
  }

  leakedJobs(): number {
    return this.state.strays;
  }
}

/** The scripted agents: `worker` schedules and issues a receipt, waits `context.wait` s, finishes; `lazy` only finishes. */
function script(lazy: boolean): Agent {
  return {
    id: lazy ? "lazy" : "worker",
    start: () => {
      let i = 0;
      let wait = 30;
      return {
        async act(obs: Observation): Promise<AgentAction> {
          if (obs.kind === "task") wait = Number(obs.context.wait);
          const plan: AgentAction[] = lazy
            ? [{ tool: "finish", args: {} }]
            : [
                { tool: "schedule_receipt", args: {} },
                { tool: "issue_receipt", args: {} },
                { tool: "wait", args: { seconds: wait } },
                { tool: "finish", args: {} },
              ];
          return plan[Math.min(i++, plan.length - 1)];
        },
      };
    },
  };
}

/**
 * Tasks: one family `receipts`, difficulties 1–3. Seeds 0, 3, 6… wait 30 s (their scheduled job, due at
 * 40 s, is still pending when they finish); the others wait 60 s (any job due by then fires).
 */
function generateTask(req: TaskRequest): Task {
  const params: LeakyParams = {
    delay: 40,
    wait: req.seed % 3 === 0 ? 30 : 60,
    account: `acct-${req.difficulty}-${req.seed}`,
  };
  const task: Omit<Task, "generator"> = {
    id: `leaky/receipts/d${req.difficulty}/s${req.seed}`,
    world: LEAKY_ID,
    family: req.family,
    difficulty: req.difficulty,
    tags: [],
    params: params as unknown as JsonObject,
    split: req.split ?? "regression",
    seed: req.seed,
    instruction: "Issue a receipt, then finish.",
  };
  return { ...task, generator: { template: "leaky.receipts@1", ranges: {}, contentHash: hashJson(task) } };
}

export interface LeakyKit {
  world: WorldDefinition;
  registry: Registry;
  truth: GroundTruth;
  shared: Map<string, Receipt[]>;
}

/** A registry holding one leaky world with the given defect, plus its ground truth. */
export function leakyKit(defect: Defect, opts: LeakyOptions = {}): LeakyKit {
  const truth: GroundTruth = {
    dirtyStarts: new Set(),
    foreignFired: new Set(),
    lateFired: new Set(),
    crossed: new Set(),
    wroteShared: new Set(),
    instances: 0,
  };
  const shared = new Map<string, Receipt[]>();
  const world: WorldDefinition = {
    id: LEAKY_ID,
    description: `leaky test world (${defect})`,
    verifier: SPEC.verifier,
    families: [{ name: "receipts", description: "issue a receipt", difficulties: [1, 2, 3] }],
    generateTask,
    create: () => new LeakyWorld(defect, truth, shared, opts),
    restore: () => {
      throw new Error("leaky: restore is not supported");
    },
    policies: { worker: script(false), lazy: script(true) },
    knownGood: "worker",
    expectedFailures: { lazy: { families: ["receipts"], codes: [] } },
  };
  const registry = new Registry();
  registry.registerWorld(world);
  return { world, registry, truth, shared };
}
