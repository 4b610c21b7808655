import { performance } from "node:perf_hooks";
import type {
  Action,
  Agent,
  AgentAction,
  AgentSession,
  Environment,
  IsolationCheck,
  Observation,
  Outcome,
  StepRecord,
  Task,
  TrialRecord,
  TrialSpec,
  TrialStats,
  Verdict,
} from "../core/contracts.ts";
import { bareWorld, type EnvironmentFactory } from "../core/environment-factory.ts";
import { errorMessage, ProvingError } from "../core/errors.ts";
import { hashJson } from "../core/hash.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { afterEpisode, endProblem, type StartStates, safeStateHash, startProblem } from "./clean-start.ts";
import type { EnvironmentPool, EpisodeEnd } from "./env-pool.ts";

export interface TrialDeps {
  world: WorldDefinition;
  agent: Agent;
  environment?: EnvironmentFactory;
  /** Compare the start state with a freshly built reference instance (default true). */
  checkCleanStart?: boolean;
  /** Called after each step (live progress, streaming). */
  onStep?: (step: StepRecord) => void;
  /**
   * Instances to reuse across this worker's trials instead of building one per trial. Reset must
   * clean a reused instance; the clean-start check verifies that it did.
   */
  pool?: EnvironmentPool;
  /**
   * Start states seen so far in this run (shared by every trial of it): a trial whose start state
   * differs from an earlier trial's of the same task and seed is contaminated (state shared between
   * trials). Only used with the clean-start check.
   */
  startStates?: StartStates;
  /** After the episode, wait one timer turn and check nothing touched the world (default true). */
  checkAfterEnd?: boolean;
}

class TrialEnd extends Error {
  constructor(
    readonly outcome: Outcome,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks what an agent returned is an action; a bad one ends the trial as `agent_error`. */
function toAction(value: unknown, index: number): { action: Action; meta?: AgentAction["meta"] } {
  if (!isObject(value))
    throw new TrialEnd(
      "agent_error",
      `act() returned ${value === undefined ? "undefined" : JSON.stringify(value)}, not an action {tool, args}`,
    );
  if (typeof value.tool !== "string" || value.tool.length === 0) {
    throw new TrialEnd("agent_error", "act() returned an action without a string `tool`");
  }
  const args = value.args === undefined ? {} : value.args;
  if (!isObject(args))
    throw new TrialEnd("agent_error", `act() returned an action whose \`args\` is not an object`);
  const callId = typeof value.callId === "string" && value.callId.length > 0 ? value.callId : `call-${index}`;
  const action: Action = { tool: value.tool, args: args as Action["args"], callId };
  return isObject(value.meta) ? { action, meta: value.meta as AgentAction["meta"] } : { action };
}

/** setTimeout fires at once for delays past 2^31 − 1 ms; longer deadlines are simply not armed. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * A trial's wall-clock deadline: one timer for the whole trial (armed on first use) that rejects every
 * call awaited when it fires. (A timer and a Promise.race per awaited call cost more than a step.)
 */
class Deadline {
  readonly #at: number;
  #timer: NodeJS.Timeout | undefined;
  #fired = false;
  /** Calls awaited under the deadline (usually one at a time). */
  readonly #pending: Array<{ reject: (err: TrialEnd) => void; what: string | (() => string) }> = [];

  constructor(at: number) {
    this.#at = at;
  }

  /** True once the timer fired (every call awaited then was rejected). */
  get fired(): boolean {
    return this.#fired;
  }

  /** True once the deadline has passed (a call must not start). */
  passed(): boolean {
    return this.#at - performance.now() <= 0;
  }

  /**
   * `work`, rejected with a `timeout` if the deadline fires first. `what` names the call awaited (a
   * function when it changes while `work` runs: the step loop is guarded once, not once per call).
   */
  guard<T>(work: Promise<T>, what: string | (() => string)): Promise<T> {
    const left = this.#at - performance.now();
    if (left <= 0)
      return Promise.reject(
        new TrialEnd("timeout", `wall-clock timeout before ${typeof what === "string" ? what : what()}`),
      );
    if (left > MAX_TIMER_MS) return work;
    this.#timer ??= setTimeout(() => this.#fire(), left);
    return new Promise<T>((resolve, reject) => {
      const entry = { reject, what };
      this.#pending.push(entry);
      work.then(
        (value) => {
          this.#settled(entry);
          resolve(value);
        },
        (err) => {
          this.#settled(entry);
          reject(err);
        },
      );
    });
  }

  #settled(entry: { reject: (err: TrialEnd) => void; what: string | (() => string) }): void {
    const pending = this.#pending;
    const i = pending.indexOf(entry);
    if (i < 0) return;
    const last = pending.pop()!;
    if (last !== entry) pending[i] = last;
  }

  #fire(): void {
    this.#timer = undefined;
    this.#fired = true;
    const pending = this.#pending.splice(0);
    for (const { reject, what } of pending)
      reject(
        new TrialEnd("timeout", `wall-clock timeout during ${typeof what === "string" ? what : what()}`),
      );
  }

  /** Stops the timer (the trial is over). */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

function classify(err: unknown, during: "agent" | "world"): TrialEnd {
  if (err instanceof TrialEnd) return err;
  if (err instanceof ProvingError) {
    if (err.fault === "infrastructure") return new TrialEnd("infra_error", `${err.code}: ${err.message}`);
    if (err.fault === "agent") return new TrialEnd("agent_error", `${err.code}: ${err.message}`);
    if (err.code === "budget_exhausted") return new TrialEnd("budget_exhausted", err.message);
  }
  return during === "agent"
    ? new TrialEnd("agent_error", `agent threw: ${errorMessage(err)}`)
    : new TrialEnd("infra_error", `world crashed: ${errorMessage(err)}`);
}

/** The deterministic part of a trajectory: what any re-run of the trial must reproduce. */
export function trajectoryHash(
  initial: Observation | undefined,
  steps: StepRecord[],
  outcome: Outcome,
  verdict?: Verdict,
): string {
  return hashJson({
    initial,
    // keys in canonical (sorted) order, so the hasher finds them sorted already
    steps: steps.map((s) => ({
      action: s.action,
      observation: s.observation,
      reward: s.reward,
      t: s.t,
      terminated: s.terminated,
      truncated: s.truncated,
    })),
    outcome,
    verdict,
  });
}

/** Runs one planned trial to exactly one outcome. Never throws for what an agent or world does. */
export async function runTrial(spec: TrialSpec, deps: TrialDeps): Promise<TrialRecord> {
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const deadline = t0 + (spec.budget.wallTimeoutMs ?? Number.POSITIVE_INFINITY);
  const steps: StepRecord[] = [];
  const stats: TrialStats = { steps: 0, virtualSeconds: 0, wallMs: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 };
  let task: Task | undefined;
  let env: Environment | undefined;
  let previous: EpisodeEnd | undefined;
  let initial: Observation | undefined;
  let session: AgentSession | undefined;
  let verdict: Verdict | undefined;
  let outcome: Outcome = "failed";
  let reason = "";
  let cleanStart: IsolationCheck = "not_checkable";
  const makeEnv = deps.environment ?? bareWorld;
  const episodeId = spec.id;
  const wallClock = new Deadline(deadline);
  const guard = <T>(work: Promise<T>, what: string) => wallClock.guard(work, what);

  try {
    let movedSinceEnd = false;
    try {
      task = deps.world.generateTask({
        family: spec.family,
        difficulty: spec.difficulty,
        seed: spec.seed,
        ...(spec.params ? { params: spec.params } : {}),
      });
      if (deps.pool) {
        const acquired = deps.pool.acquire(spec, deps.world);
        env = acquired.env;
        previous = acquired.previous;
        const inspection = env.capabilities.inspection;
        if (previous && inspection) movedSinceEnd = safeStateHash(inspection) !== previous.endHash;
      } else {
        env = makeEnv(spec, deps.world);
      }
      const e = env;
      const t = task;
      initial = await guard(
        Promise.resolve().then(() => e.reset({ task: t, seed: spec.seed, episodeId })),
        "reset()",
      );
    } catch (err) {
      if (err instanceof ProvingError && err.fault === "config")
        throw new TrialEnd("infra_error", `${err.code}: ${err.message}`);
      throw classify(err, "world");
    }
    let dirty: string | undefined;
    const inspection = env.capabilities.inspection;
    try {
      dirty = !inspection
        ? undefined
        : await startProblem({
            spec,
            world: deps.world,
            task,
            env: inspection,
            episodeId,
            makeEnv,
            reference: deps.checkCleanStart !== false,
            ...(previous ? { previous, movedSinceEnd } : {}),
            ...(deps.startStates && deps.checkCleanStart !== false ? { startStates: deps.startStates } : {}),
            guard,
          });
    } catch (err) {
      throw classify(err, "world");
    }
    cleanStart = !inspection ? "not_checkable" : dirty === undefined ? "passed" : "failed";
    if (dirty !== undefined) throw new TrialEnd("contaminated", dirty);
    // steps a Setup layer replayed after reset: in the trace, marked setup, not agent steps
    for (const r of env.capabilities.setup?.setupSteps() ?? []) {
      steps.push({
        index: steps.length,
        action: r.action,
        observation: r.observation,
        reward: r.reward,
        terminated: false,
        truncated: false,
        t: r.info.now,
        setup: true,
        ...(r.info.layers?.length ? { layers: r.info.layers } : {}),
      });
    }
    const setupSteps = steps.length;
    try {
      session = await guard(
        Promise.resolve(
          deps.agent.start({
            trialId: spec.id,
            world: spec.world,
            taskId: task.id,
            instruction: task.instruction,
            tools: env.spec.tools,
            seed: spec.seed,
          }),
        ),
        "agent start",
      );
    } catch (err) {
      throw classify(err, "agent");
    }
    // The step loop is guarded by the deadline once, not per call: `act()` and `step()` are awaited
    // as they are (no wrapper promise per call). Once the deadline fired, the loop, should a late
    // call resume it, stops before touching anything.
    const s = session;
    const e = env;
    let during = "act()";
    const loop = async (): Promise<void> => {
      let observation = initial as Observation;
      const budget = spec.budget;
      for (;;) {
        if (steps.length - setupSteps >= budget.maxSteps)
          throw new TrialEnd("budget_exhausted", `step budget of ${budget.maxSteps} exhausted`);
        if (budget.maxVirtualSeconds !== undefined && stats.virtualSeconds >= budget.maxVirtualSeconds) {
          throw new TrialEnd(
            "budget_exhausted",
            `virtual-time budget of ${budget.maxVirtualSeconds} s exhausted`,
          );
        }
        if (budget.maxTokens !== undefined && stats.tokensIn + stats.tokensOut >= budget.maxTokens) {
          throw new TrialEnd("budget_exhausted", `token budget of ${budget.maxTokens} exhausted`);
        }
        if (budget.maxCostUsd !== undefined && stats.costUsd >= budget.maxCostUsd) {
          throw new TrialEnd("budget_exhausted", `cost budget of $${budget.maxCostUsd} exhausted`);
        }
        if (wallClock.passed()) throw new TrialEnd("timeout", "wall-clock timeout before act()");
        during = "act()";
        let returned: AgentAction;
        try {
          returned = await s.act(observation);
        } catch (err) {
          if (wallClock.fired) return;
          throw classify(err, "agent");
        }
        if (wallClock.fired) return;
        const { action, meta } = toAction(returned, steps.length);
        if (meta) {
          stats.tokensIn += meta.tokensIn ?? 0;
          stats.tokensOut += meta.tokensOut ?? 0;
          stats.costUsd += meta.costUsd ?? 0;
        }
        if (wallClock.passed()) throw new TrialEnd("timeout", "wall-clock timeout before step()");
        during = "step()";
        let result: Awaited<ReturnType<Environment["step"]>>;
        try {
          result = await e.step(action);
        } catch (err) {
          if (wallClock.fired) return;
          throw classify(err, "world");
        }
        if (wallClock.fired) return;
        const info = result.info;
        const record: StepRecord = {
          index: steps.length,
          action,
          observation: result.observation,
          reward: result.reward,
          terminated: result.terminated,
          truncated: result.truncated,
          t: info.now,
        };
        if (info.setup) record.setup = true;
        if (info.layers?.length) record.layers = info.layers;
        if (meta) record.meta = meta;
        steps.push(record);
        stats.virtualSeconds = info.now;
        deps.onStep?.(record);
        observation = result.observation;
        if (result.terminated || result.truncated) {
          verdict = info.verdict ?? e.evaluate();
          if (result.truncated)
            throw new TrialEnd("budget_exhausted", "the environment truncated the episode");
          outcome = verdict.violations.length > 0 ? "violated" : verdict.passed ? "passed" : "failed";
          reason = verdictReason(verdict);
          return;
        }
      }
    };
    await wallClock.guard(loop(), () => during);
  } catch (err) {
    const end = err instanceof TrialEnd ? err : classify(err, "world");
    outcome = end.outcome;
    reason = end.reason;
    if (
      env &&
      verdict === undefined &&
      initial !== undefined &&
      outcome !== "contaminated" &&
      outcome !== "infra_error"
    ) {
      try {
        verdict = env.evaluate();
      } catch {
        verdict = undefined;
      }
    }
  }
  wallClock.clear();
  let end: EpisodeEnd | undefined;
  const inspection = env?.capabilities.inspection;
  let afterEnd: IsolationCheck = "not_checkable";
  if (env && initial !== undefined && inspection) {
    // The episode is over: nothing may touch its world from here on.
    const after = await afterEpisode(inspection, deps.checkAfterEnd !== false);
    let leaked = 0;
    try {
      leaked = inspection.leakedJobs();
    } catch {
      leaked = 0;
    }
    afterEnd = leaked > 0 || after.problem ? "failed" : "passed";
    if (outcome !== "contaminated") {
      if (leaked > 0) {
        outcome = "contaminated";
        reason = `${leaked} background job(s) of another episode fired during the trial${previous ? ` (instance reused after episode ${previous.episodeId})` : ""}`;
      } else if (after.problem) {
        outcome = "contaminated";
        reason = after.problem;
      }
    }
    if (outcome !== "contaminated" && task && deps.startStates && deps.checkCleanStart !== false) {
      try {
        const escaped = await endProblem({
          spec,
          world: deps.world,
          task,
          episodeId,
          makeEnv,
          reference: false,
          startStates: deps.startStates,
          guard: (work) => work,
        });
        if (escaped) {
          outcome = "contaminated";
          reason = escaped;
          afterEnd = "failed";
        }
      } catch {
        // the start check built the same probe without trouble; a failure here changes nothing recorded
      }
    }
    const reusable = outcome !== "contaminated" && outcome !== "infra_error" && outcome !== "timeout";
    if (reusable && after.endHash !== undefined) end = { episodeId, endHash: after.endHash };
  }
  if (deps.pool && env) deps.pool.release(spec, env, end);
  let agentSteps = 0;
  for (const s of steps) if (!s.setup) agentSteps++;
  stats.steps = agentSteps;
  stats.wallMs = performance.now() - t0;
  if (session?.end) {
    try {
      const last =
        steps.length > 0 && !steps[steps.length - 1].setup ? steps[steps.length - 1].observation : undefined;
      await session.end({
        trialId: spec.id,
        outcome,
        ...(verdict ? { verdict } : {}),
        ...(last ? { last } : {}),
      });
    } catch {
      // an agent's cleanup failure does not change what happened in the trial
    }
  }
  return {
    schemaVersion: 1,
    spec,
    task: task ?? placeholderTask(spec),
    outcome,
    reason,
    ...(verdict ? { verdict } : {}),
    ...(initial ? { initial } : {}),
    steps,
    stats,
    trajectoryHash: trajectoryHash(initial, steps, outcome, verdict),
    ...(initial !== undefined ? { isolation: { cleanStart, afterEnd } } : {}),
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}

function verdictReason(v: Verdict): string {
  if (v.violations.length) return `violations: ${[...new Set(v.violations.map((x) => x.code))].join(", ")}`;
  const failed = v.checks.filter((c) => !c.passed).map((c) => `${c.name} (${c.detail})`);
  return failed.length ? `failed checks: ${failed.join("; ")}` : "all checks passed";
}

/** A task stand-in for a trial whose task could not even be generated. */
function placeholderTask(spec: TrialSpec): Task {
  return {
    id: `${spec.world}/${spec.family}/d${spec.difficulty}/s${spec.seed}`,
    world: spec.world,
    family: spec.family,
    difficulty: spec.difficulty,
    tags: [],
    params: {},
    split: "regression",
    seed: spec.seed,
    instruction: "",
    generator: { template: "", ranges: {}, contentHash: "" },
  };
}

/** A record for a planned trial that ended before its world was built (it still counts). */
export function unranRecord(spec: TrialSpec, outcome: Outcome, reason: string): TrialRecord {
  const now = new Date().toISOString();
  return {
    schemaVersion: 1,
    spec,
    task: placeholderTask(spec),
    outcome,
    reason,
    steps: [],
    stats: { steps: 0, virtualSeconds: 0, wallMs: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 },
    trajectoryHash: "",
    startedAt: now,
    finishedAt: now,
  };
}
