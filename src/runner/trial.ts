import { performance } from "node:perf_hooks";
import type {
  Action,
  Agent,
  AgentAction,
  AgentSession,
  Environment,
  Observation,
  Outcome,
  StepRecord,
  Task,
  TrialRecord,
  TrialSpec,
  TrialStats,
  Verdict,
} from "../core/contracts.ts";
import { errorMessage, ProvingError } from "../core/errors.ts";
import { hashJson } from "../core/hash.ts";
import type { WorldDefinition } from "../core/registry.ts";

/** How the runner builds the environment of a trial (the bare world, or a harnessed variant). */
export type EnvironmentFactory = (spec: TrialSpec, world: WorldDefinition) => Environment;

export const bareWorld: EnvironmentFactory = (_spec, world) => world.create();

export interface TrialDeps {
  world: WorldDefinition;
  agent: Agent;
  environment?: EnvironmentFactory;
  /** Compare the start state with a freshly built reference instance (default true). */
  checkCleanStart?: boolean;
  /** Called after each step (live progress, streaming). */
  onStep?: (step: StepRecord) => void;
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

async function withDeadline<T>(work: Promise<T>, deadline: number, what: string): Promise<T> {
  const left = deadline - performance.now();
  if (left <= 0) throw new TrialEnd("timeout", `wall-clock timeout before ${what}`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TrialEnd("timeout", `wall-clock timeout during ${what}`)), left);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
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
    steps: steps.map((s) => ({
      action: s.action,
      observation: s.observation,
      reward: s.reward,
      terminated: s.terminated,
      truncated: s.truncated,
      t: s.t,
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
  let initial: Observation | undefined;
  let session: AgentSession | undefined;
  let verdict: Verdict | undefined;
  let outcome: Outcome = "failed";
  let reason = "";
  const makeEnv = deps.environment ?? bareWorld;
  const episodeId = spec.id;

  try {
    try {
      task = deps.world.generateTask({
        family: spec.family,
        difficulty: spec.difficulty,
        seed: spec.seed,
        ...(spec.params ? { params: spec.params } : {}),
      });
      env = makeEnv(spec, deps.world);
      initial = await env.reset({ task, seed: spec.seed, episodeId });
    } catch (err) {
      if (err instanceof ProvingError && err.fault === "config")
        throw new TrialEnd("infra_error", `${err.code}: ${err.message}`);
      throw classify(err, "world");
    }
    const foreign = env.pendingJobs().filter((j) => j.owner !== episodeId);
    if (foreign.length > 0) {
      throw new TrialEnd(
        "contaminated",
        `${foreign.length} background job(s) of another episode pending at start`,
      );
    }
    if (deps.checkCleanStart !== false) {
      const reference = makeEnv(spec, deps.world);
      await reference.reset({ task, seed: spec.seed, episodeId });
      if (reference.stateHash() !== env.stateHash()) {
        throw new TrialEnd(
          "contaminated",
          "start state differs from a freshly built instance (reset left state behind)",
        );
      }
    }
    try {
      session = await withDeadline(
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
        deadline,
        "agent start",
      );
    } catch (err) {
      throw classify(err, "agent");
    }
    let observation: Observation = initial;
    for (;;) {
      const budget = spec.budget;
      if (steps.length >= budget.maxSteps)
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
      let returned: AgentAction;
      try {
        const s = session;
        const obs = observation;
        returned = await withDeadline(
          Promise.resolve().then(() => s.act(obs)),
          deadline,
          "act()",
        );
      } catch (err) {
        throw classify(err, "agent");
      }
      const { action, meta } = toAction(returned, steps.length);
      if (meta) {
        stats.tokensIn += meta.tokensIn ?? 0;
        stats.tokensOut += meta.tokensOut ?? 0;
        stats.costUsd += meta.costUsd ?? 0;
      }
      let result: Awaited<ReturnType<Environment["step"]>>;
      try {
        result = await env.step(action);
      } catch (err) {
        throw classify(err, "world");
      }
      const record: StepRecord = {
        index: steps.length,
        action,
        observation: result.observation,
        reward: result.reward,
        terminated: result.terminated,
        truncated: result.truncated,
        t: result.info.now,
        ...(result.info.setup ? { setup: true } : {}),
        ...(result.info.layers?.length ? { layers: result.info.layers } : {}),
        ...(meta ? { meta } : {}),
      };
      steps.push(record);
      stats.virtualSeconds = result.info.now;
      deps.onStep?.(record);
      observation = result.observation;
      if (result.terminated || result.truncated) {
        verdict = result.info.verdict ?? env.evaluate();
        if (result.truncated) throw new TrialEnd("budget_exhausted", "the environment truncated the episode");
        outcome = verdict.violations.length > 0 ? "violated" : verdict.passed ? "passed" : "failed";
        reason = verdictReason(verdict);
        break;
      }
    }
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
  if (env && initial !== undefined) {
    const leaked = env.leakedJobs();
    if (leaked > 0 && outcome !== "contaminated") {
      outcome = "contaminated";
      reason = `${leaked} background job(s) of another episode fired during the trial`;
    }
  }
  stats.steps = steps.length;
  stats.wallMs = performance.now() - t0;
  if (session?.end) {
    try {
      await session.end({ trialId: spec.id, outcome, ...(verdict ? { verdict } : {}) });
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

/** A record for a planned trial that never ran. */
export function missingRecord(spec: TrialSpec, reason = "planned, never ran"): TrialRecord {
  const now = new Date().toISOString();
  return {
    schemaVersion: 1,
    spec,
    task: placeholderTask(spec),
    outcome: "missing",
    reason,
    steps: [],
    stats: { steps: 0, virtualSeconds: 0, wallMs: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 },
    trajectoryHash: "",
    startedAt: now,
    finishedAt: now,
  };
}
