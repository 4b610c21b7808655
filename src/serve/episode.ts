import { performance } from "node:perf_hooks";
import type {
  AdmissibleActions,
  Budget,
  Environment,
  Observation,
  StepResult,
  Task,
  TrialStats,
  Verdict,
} from "../core/contracts.ts";
import { errorMessage, ProvingError } from "../core/errors.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";
import {
  openEnvCallToolObservation,
  openEnvResetObservation,
  openEnvToolList,
} from "../protocol/openenv-observations.ts";
import type { EpisodeEndNote } from "../protocol/tool-step.ts";
import { exhaustedBudget } from "../runner/budget.ts";
import { Deadline } from "../runner/deadline.ts";
import { type EndOfEpisode, endOfEpisode } from "../runner/end-of-episode.ts";
import { closeEnvironment } from "../runner/env-pool.ts";
import { classify } from "../runner/outcome.ts";
import { admissibleMetadata, admissibleOf } from "./admissible.ts";
import {
  type ChosenTask,
  resetMetadataFor,
  type StepBookkeeping,
  stateFor,
  stepMetadataFor,
  type Viewer,
} from "./disclosure.ts";
import {
  type EpisodeStateDoc,
  type ResetParams,
  ServeError,
  type StepEnvelope,
  type WireAction,
} from "./protocol.ts";
import type { ServedRun, ServeTransport } from "./served-run.ts";
import type { ServedTrial } from "./served-trial.ts";
import type { ServeTarget } from "./target.ts";
import { chooseTask, type TaskChoiceDefaults } from "./task-choice.ts";
import { drawTask, type SourcedTask, type TaskSource } from "./task-source.ts";

/**
 * How a reset without `family`/`difficulty`/`seed` picks them (`task-choice.ts`): derived from the
 * reset's seed when it sent one, drawn from `random` when it did not.
 */
export interface EpisodeDefaults extends TaskChoiceDefaults {
  /** Server-side step cap: reaching it truncates the episode (default 200). */
  maxSteps?: number;
  /** Uniform [0, 1) source for the seed and defaults of a reset without a seed (injected in tests). */
  random?: () => number;
  /** Where a reset that leaves its task to the server gets one (the curriculum; `task-source.ts`). */
  taskSource?: TaskSource;
}

export type SessionKind = "http" | "ws";

function freshStats(): TrialStats {
  return { steps: 0, virtualSeconds: 0, wallMs: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 };
}

/**
 * One session: one environment instance, one episode at a time. Every operation runs in turn
 * (a session never steps twice at once), and the session knows when it was last used so the
 * reaper can reclaim it. The episode is kept as the runner keeps a trial's: its stats (steps,
 * virtual seconds), the step budget checked with the runner's `exhaustedBudget`, and its end (verdict
 * and outcome) decided by the runner's `endOfEpisode`.
 */
export class Episode {
  readonly kind: SessionKind;
  /** Server-side handle (the HTTP episode id, or a generated id for a WS connection). */
  readonly key: string;
  lastActive: number;
  private busy = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private env: Environment | undefined;
  private task: Task | undefined;
  private episodeId: string | null = null;
  private seed: number | null = null;
  /** What the client of the current episode chose itself (echoed to it; the rest stays hidden). */
  private chosen: ChosenTask = {};
  /** The runner's per-trial stats: `steps` (the agent's) and `virtualSeconds` are kept. */
  private stats: TrialStats = freshStats();
  private totalReward = 0;
  private terminated = false;
  private truncated = false;
  /** How the episode ended, once it has. */
  private ending: EndOfEpisode | undefined;
  private broken: string | undefined;
  private disposed = false;
  /** The server's step cap, as a runner budget. */
  private readonly budget: Budget;
  /** Called once when the session is evicted (reaped, closed by the server). */
  onEvict: ((reason: string) => void) | undefined;
  /** The server's recorded run (with a store), which plans and records each episode as a trial. */
  private readonly run: ServedRun | undefined;
  /** The current episode as a trial, while it is recorded and has not ended. */
  private trial: ServedTrial | undefined;
  /** The current episode's task from the task source, until its trial ends (its record reports back). */
  private sourced: SourcedTask | undefined;

  constructor(
    private readonly target: ServeTarget,
    private readonly defaults: EpisodeDefaults,
    opts: { kind: SessionKind; key: string; now: number; run?: ServedRun | undefined },
  ) {
    this.kind = opts.kind;
    this.key = opts.key;
    this.lastActive = opts.now;
    this.budget = { maxSteps: defaults.maxSteps ?? 200 };
    this.run = opts.run;
  }

  get isBusy(): boolean {
    return this.busy > 0;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  get done(): boolean {
    return this.terminated || this.truncated;
  }

  /** The current episode's id (`null` before the first reset). */
  get id(): string | null {
    return this.episodeId;
  }

  /** Once the episode has ended: its outcome (as a trial's would be) and the verdict. */
  get end(): EpisodeEndNote | undefined {
    const e = this.ending;
    return this.done && e ? { outcome: e.outcome, verdict: e.verdict } : undefined;
  }

  /** The current episode's task (a new object for each reset: it names the episode). */
  get currentTask(): Task | undefined {
    return this.task;
  }

  /** The rewards of the current episode summed. */
  get rewardSum(): number {
    return this.totalReward;
  }

  /** Steps taken and virtual seconds, as the runner counts a trial's. */
  get progress(): { steps: number; now: number } {
    return { steps: this.stats.steps, now: this.stats.virtualSeconds };
  }

  /**
   * Runs `fn` after every earlier operation of this session has finished. An idle session starts
   * `fn` at once (no hop through the chain: this is the per-step hot path of a WS connection).
   */
  exclusive<T>(clock: () => number, fn: () => Promise<T>): Promise<T> {
    const idle = this.busy === 0;
    this.busy++;
    this.lastActive = clock();
    // No named closures per call here: under tsx every one costs an Object.defineProperty.
    const run = (
      idle
        ? this.begin(fn)
        : this.chain.then(
            () => this.begin(fn),
            () => this.begin(fn),
          )
    ).then(
      (value) => {
        this.settle(clock);
        return value;
      },
      (err: unknown) => {
        this.settle(clock);
        throw err;
      },
    );
    // The next operation waits for this one, whatever its outcome (its caller handles a rejection).
    this.chain = run;
    return run;
  }

  private begin<T>(fn: () => Promise<T>): Promise<T> {
    if (this.disposed) return Promise.reject(new ServeError("SESSION_ERROR", "the session was closed"));
    try {
      return fn();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private settle(clock: () => number): void {
    this.busy--;
    this.lastActive = clock();
  }

  /**
   * Starts an episode; `viewer` decides which of the task's keys the reply names (`disclosure.ts`).
   * With a recorded run, the episode is planned as a trial (`via`: its transport) before the reply;
   * an episode the reset replaces before its end stays `missing`.
   */
  async reset(
    params: ResetParams,
    episodeId: string,
    viewer: Viewer,
    via: ServeTransport = this.kind,
    /** The task source's task for this episode, drawn already (a group member's); default: drawn here. */
    given?: SourcedTask,
  ): Promise<StepEnvelope> {
    // a reset that leaves its task to the server's task source (the curriculum) plays the one it draws
    const drawn = given ?? drawTask(this.defaults.taskSource, params);
    if (!drawn) return this.start(params, episodeId, viewer, via);
    const { family, difficulty, seed } = drawn;
    try {
      const envelope = await this.start(
        { ...params, family, difficulty, seed },
        episodeId,
        viewer,
        via,
        drawn,
      );
      envelope.metadata.curriculum = drawn.metadata;
      return envelope;
    } catch (err) {
      drawn.abandoned("the reset failed");
      throw err;
    }
  }

  private async start(
    params: ResetParams,
    episodeId: string,
    viewer: Viewer,
    via: ServeTransport,
    drawn?: SourcedTask,
  ): Promise<StepEnvelope> {
    const world = this.target.world;
    const { family, difficulty, seed, chosen } = chooseTask(
      world,
      this.defaults,
      params,
      this.defaults.random ?? Math.random,
    );
    let task: Task;
    try {
      task = world.generateTask({ family, difficulty, seed });
    } catch (err) {
      if (err instanceof ProvingError && err.fault === "config")
        throw new ServeError("VALIDATION_ERROR", `reset: ${err.message}`);
      throw new ServeError("EXECUTION_ERROR", `task generation failed: ${errorMessage(err)}`);
    }
    // A fresh instance per episode: nothing of the previous episode can reach this one.
    let env: Environment;
    let observation: Awaited<ReturnType<Environment["reset"]>>;
    let stateHash: string;
    try {
      env = this.target.create();
    } catch (err) {
      this.setEnv(undefined);
      throw new ServeError("EXECUTION_ERROR", `reset failed: ${errorMessage(err)}`);
    }
    // refused before anything is reset
    const admissible = params.admissible ? admissibleOf(env, this.target.id) : undefined;
    try {
      observation = await env.reset({ task, seed, episodeId });
      stateHash = env.capabilities.inspection?.stateHash() ?? "";
    } catch (err) {
      this.setEnv(undefined);
      void closeEnvironment(env);
      throw new ServeError("EXECUTION_ERROR", `reset failed: ${errorMessage(err)}`);
    }
    this.trial = undefined;
    this.abandonSourced("replaced by another reset");
    if (this.run) {
      try {
        this.trial = await this.run.begin(
          { family, difficulty, seed },
          via,
          { task, env, initial: observation, episodeId },
          drawn,
        );
      } catch (err) {
        // nothing holds the environment just reset: close it (a foreign one holds a socket)
        this.setEnv(undefined);
        void closeEnvironment(env);
        drawn?.abandoned("not recorded");
        throw err;
      }
    }
    if (drawn && !this.trial) drawn.abandoned("not recorded");
    this.sourced = this.trial ? drawn : undefined;
    this.setEnv(env);
    this.task = task;
    this.episodeId = episodeId;
    this.seed = seed;
    this.chosen = chosen;
    this.stats = freshStats();
    this.totalReward = 0;
    this.terminated = false;
    this.truncated = false;
    this.ending = undefined;
    this.broken = undefined;
    const metadata = this.startMetadata(stateHash, viewer);
    if (observation.kind === "task") {
      // the instruction and the public task context beside the ids (a client that reads only the
      // reply's metadata); OpenEnv's MCP tool client finds them inside the observation
      metadata.instruction = observation.instruction;
      metadata.context = observation.context;
    }
    if (admissible) Object.assign(metadata, this.listAdmissible(admissible));
    return {
      observation: openEnvResetObservation(observation) as unknown as Observation,
      reward: null,
      done: false,
      metadata,
    };
  }

  /** The admissible actions now; a world that fails to list them leaves the episode unusable. */
  private listAdmissible(admissible: AdmissibleActions): JsonObject {
    try {
      return admissibleMetadata(admissible, this.done);
    } catch (err) {
      this.broken = "listing the admissible actions failed";
      this.failTrial(err);
      throw new ServeError("EXECUTION_ERROR", `admissible actions failed: ${errorMessage(err)}`);
    }
  }

  async step(
    action: WireAction,
    opts: { viewer: Viewer; requestId?: string; timeoutS?: number; admissible?: boolean },
  ): Promise<StepEnvelope> {
    const env = this.env;
    if (!env || this.episodeId === null) throw new ServeError("SESSION_ERROR", "no episode: reset first");
    if (this.broken) throw new ServeError("SESSION_ERROR", `the episode is unusable (${this.broken}); reset`);
    if (action.mcp === "list_tools") return this.listTools(opts.requestId);
    if (this.done) throw new ServeError("SESSION_ERROR", "the episode has ended; reset to start another");
    const admissible = opts.admissible ? admissibleOf(env, this.target.id) : undefined;
    const index = this.stats.steps;
    let result: StepResult;
    // the runner's wall-clock deadline, for this one step
    const deadline =
      opts.timeoutS === undefined ? undefined : new Deadline(performance.now() + opts.timeoutS * 1000);
    const sent = { tool: action.tool, args: action.args, callId: action.callId ?? `call-${index}` };
    try {
      const work = env.step(sent);
      result = deadline ? await deadline.guard(work, "step()") : await work;
    } catch (err) {
      const timedOut = deadline?.fired === true;
      this.broken = timedOut ? "a step timed out" : "a step failed";
      this.failTrial(err);
      const why = timedOut ? `no answer within ${(opts.timeoutS ?? 0) * 1000} ms` : errorMessage(err);
      throw new ServeError("EXECUTION_ERROR", `step failed: ${why}`);
    } finally {
      deadline?.clear();
    }
    const stats = this.stats;
    stats.steps++;
    stats.virtualSeconds = result.info.now;
    this.totalReward += result.reward;
    this.trial?.step(sent, result);
    let truncatedBy: string | undefined;
    if (result.terminated || result.truncated) {
      this.terminated = result.terminated;
      this.truncated = result.truncated;
      this.ending = endOfEpisode(result, { evaluate: () => this.evaluate(env) });
    } else {
      // the runner checks its budgets before the next act(); a server cuts at once, so the client is told
      const cut = exhaustedBudget(this.budget, stats.steps, stats);
      if (cut !== undefined) {
        this.truncated = true;
        this.ending = { outcome: "budget_exhausted", reason: cut, verdict: this.evaluate(env) };
        truncatedBy = "max_steps";
      }
    }
    const trial = this.trial;
    if (trial && this.ending) {
      this.trial = undefined;
      this.sourced = undefined;
      trial.end(this.ending);
    }
    const verdict = this.ending?.verdict;
    const bookkeeping = this.bookkeeping();
    if (truncatedBy !== undefined) bookkeeping.truncated_by = truncatedBy;
    if (verdict) bookkeeping.verdict = verdict as unknown as JsonValue;
    if (opts.requestId !== undefined) bookkeeping.request_id = opts.requestId;
    const metadata = stepMetadataFor(result.info as JsonObject, bookkeeping, opts.viewer);
    if (admissible) {
      // the operator's metadata is the step info itself: never write into the world's object
      return this.envelope(action, result, { ...metadata, ...this.listAdmissible(admissible) });
    }
    return this.envelope(action, result, metadata);
  }

  private envelope(action: WireAction, result: StepResult, metadata: JsonObject): StepEnvelope {
    return {
      observation:
        action.mcp === "call_tool"
          ? (openEnvCallToolObservation(result.observation, action.tool) as unknown as Observation)
          : result.observation,
      reward: result.reward,
      done: this.done,
      metadata,
    };
  }

  /** OpenEnv's `list_tools` action: the tool list; the world is not stepped. */
  private listTools(requestId: string | undefined): StepEnvelope {
    const metadata = this.bookkeeping();
    if (requestId !== undefined) metadata.request_id = requestId;
    return {
      observation: openEnvToolList(this.env?.spec.tools ?? []) as unknown as Observation,
      reward: null,
      done: this.done,
      metadata: metadata as unknown as JsonObject,
    };
  }

  /** A reset's or a fork's metadata as `viewer` is told it: the bookkeeping, the task and the cap. */
  private startMetadata(stateHash: string, viewer: Viewer, more: JsonObject = {}): JsonObject {
    const task = this.task as Task;
    return resetMetadataFor(
      {
        ...(this.bookkeeping() as unknown as JsonObject),
        environment: this.target.id,
        world: this.target.world.id,
        task_id: task.id,
        family: task.family,
        difficulty: task.difficulty,
        seed: this.seed,
        state_hash: stateHash,
        max_steps: this.budget.maxSteps,
        ...more,
      },
      this.chosen,
      viewer,
    );
  }

  /** What a step's reply says of the episode (its id, counts and end flags); only after a reset. */
  private bookkeeping(): StepBookkeeping {
    return {
      episode_id: this.episodeId ?? "",
      step_count: this.stats.steps,
      now: this.stats.virtualSeconds,
      terminated: this.terminated,
      truncated: this.truncated,
    };
  }

  private evaluate(env: Environment): Verdict {
    try {
      return env.evaluate();
    } catch (err) {
      this.broken = "the verifier failed";
      this.failTrial(err);
      throw new ServeError("EXECUTION_ERROR", `evaluation failed: ${errorMessage(err)}`);
    }
  }

  /** A step or the verifier threw: the recorded trial ends as the runner ends one (`classify`). */
  private failTrial(err: unknown): void {
    const trial = this.trial;
    if (!trial) return;
    this.trial = undefined;
    this.sourced = undefined;
    trial.fail(classify(err, "world"));
  }

  /** The episode's state as `viewer` is told it: task keys the client did not choose are `null`. */
  state(viewer: Viewer): EpisodeStateDoc {
    const t = this.task;
    return stateFor(
      {
        episode_id: this.episodeId,
        step_count: this.stats.steps,
        world: this.target.world.id,
        environment: this.target.id,
        task_id: t?.id ?? null,
        family: t?.family ?? null,
        difficulty: t?.difficulty ?? null,
        seed: this.seed,
        now: this.stats.virtualSeconds,
        done: this.done,
        terminated: this.terminated,
        truncated: this.truncated,
        total_reward: this.totalReward,
        ...(this.done && this.ending ? { verdict: this.ending.verdict as unknown as JsonValue } : {}),
      },
      this.chosen,
      viewer,
    );
  }

  /** The source of an episode that will have no record is told so (it does not learn from it). */
  private abandonSourced(reason: string): void {
    const sourced = this.sourced;
    this.sourced = undefined;
    sourced?.abandoned(reason);
  }

  /**
   * The current episode's state, to fork it (`forkFrom`); refused for an episode that has not
   * started, has ended or is unusable, and for an environment that cannot be restored.
   */
  saveForFork(): JsonValue {
    const env = this.env;
    if (!env || this.episodeId === null)
      throw new ServeError("SESSION_ERROR", "fork: no episode: reset first");
    if (this.broken) throw new ServeError("SESSION_ERROR", `fork: the episode is unusable (${this.broken})`);
    if (this.done) throw new ServeError("SESSION_ERROR", "fork: the episode has ended");
    if (!this.target.restore) {
      throw new ServeError("VALIDATION_ERROR", `fork: ${this.target.id} cannot be forked (no state restore)`);
    }
    return env.saveState();
  }

  /**
   * Continues `parent`'s episode in this new session from `saved` (its `saveForFork()`): a fresh
   * instance restored from the saved state (its effect log included, so the verdict judges everything
   * done in this world), not a replay. Steps, virtual time and rewards go on from the parent's; the
   * reply is the parent's latest observation. With a recorded run the fork is its own trial, planned
   * as forked from the parent (`ServedRun.fork`).
   */
  async forkFrom(
    parent: Episode,
    saved: JsonValue,
    episodeId: string,
    viewer: Viewer,
    via: ServeTransport = this.kind,
  ): Promise<StepEnvelope> {
    const task = parent.task;
    const parentId = parent.episodeId;
    const restore = this.target.restore;
    if (!task || parentId === null || !restore) throw new ServeError("SESSION_ERROR", "fork: no episode");
    let env: Environment;
    let observation: Observation;
    try {
      env = restore(saved);
      observation = env.observe();
    } catch (err) {
      throw new ServeError("EXECUTION_ERROR", `fork failed: ${errorMessage(err)}`);
    }
    const forkedFrom = { episode_id: parentId, step_count: parent.stats.steps };
    const parentTrial = parent.trial;
    this.trial = this.run && parentTrial ? await this.run.fork(parentTrial, env, forkedFrom, via) : undefined;
    this.setEnv(env);
    this.task = task;
    this.episodeId = episodeId;
    this.seed = parent.seed;
    this.chosen = parent.chosen;
    this.stats = { ...parent.stats };
    this.totalReward = parent.totalReward;
    this.terminated = false;
    this.truncated = false;
    this.ending = undefined;
    this.broken = undefined;
    const metadata = this.startMetadata(env.capabilities.inspection?.stateHash() ?? "", viewer, {
      forked_from: forkedFrom,
    });
    return { observation, reward: null, done: false, metadata };
  }

  /** The session's environment from now on; the one it replaces is closed (`Environment.close`). */
  private setEnv(env: Environment | undefined): void {
    const old = this.env;
    this.env = env;
    if (old && old !== env) void closeEnvironment(old);
  }

  /** Drops the environment; later operations fail with SESSION_ERROR. */
  dispose(reason: string): void {
    if (this.disposed) return;
    this.disposed = true;
    this.setEnv(undefined);
    // an episode that had not ended is abandoned: its planned trial stays `missing`
    this.trial = undefined;
    this.abandonSourced(reason);
    const hook = this.onEvict;
    this.onEvict = undefined;
    hook?.(reason);
  }
}
