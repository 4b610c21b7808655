import { performance } from "node:perf_hooks";
import type {
  Action,
  Environment,
  Observation,
  StepResult,
  Task,
  TrialRecord,
  TrialSpec,
} from "../core/contracts.ts";
import { bareWorld } from "../core/environment-factory.ts";
import type { WorldDefinition } from "../core/registry.ts";
import type { TrialEnd } from "../core/trial-end.ts";
import { checkAfterEnd } from "../runner/after-end.ts";
import { startProblem } from "../runner/clean-start.ts";
import type { EndOfEpisode } from "../runner/end-of-episode.ts";
import { stepRecord } from "../runner/step-record.ts";
import { finishTrial } from "../runner/trial-record.ts";
import { recordSetupSteps } from "../runner/trial-start.ts";
import { newTrialState, type TrialState } from "../runner/trial-state.ts";

/** A served episode right after its reset: what its trial starts from. */
export interface ServedStart {
  task: Task;
  env: Environment;
  initial: Observation;
  /** The episode id the environment was reset with (the owner of its background jobs). */
  episodeId: string;
}

/**
 * One served episode kept as the runner keeps a trial (`TrialState`): its setup steps, each step the
 * client took (the action sent to the world and the world's own result, not the wire's rendering of
 * it), its end, and the runner's isolation checks (a clean start: no job of another episode pending
 * after reset; after the end: the world stayed still). Its record is the runner's (`finishTrial`),
 * so it is reported and replayed like any trial. Recording is `done`'s business: nothing here is
 * awaited by a step.
 */
export class ServedTrial {
  readonly #t: TrialState;
  readonly #world: WorldDefinition;
  readonly #startedAt = new Date().toISOString();
  readonly #t0 = performance.now();
  readonly #cleanStart: Promise<string | undefined>;
  readonly #done: (record: Promise<TrialRecord>) => void;
  #ended = false;

  constructor(
    spec: TrialSpec,
    world: WorldDefinition,
    start: ServedStart,
    done: (record: Promise<TrialRecord>) => void,
    /** A fork's parent: its steps so far are this trial's first, its clean start this trial's. */
    from?: ServedTrial,
  ) {
    const t = newTrialState(spec);
    t.task = start.task;
    t.env = start.env;
    t.initial = start.initial;
    this.#t = t;
    this.#world = world;
    this.#done = done;
    if (from) {
      t.steps.push(...from.#t.steps);
      Object.assign(t.stats, from.#t.stats);
      this.#cleanStart = from.#cleanStart;
      return;
    }
    const inspection = start.env.capabilities.inspection;
    // the runner's first clean-start check (read at once, before any step): no foreign job pending
    this.#cleanStart = inspection
      ? startProblem({
          spec,
          world,
          task: start.task,
          env: inspection,
          episodeId: start.episodeId,
          makeEnv: bareWorld,
          reference: false,
          guard: (work) => work,
        }).catch(() => undefined)
      : Promise.resolve(undefined);
    recordSetupSteps(start.env, t.steps);
  }

  get spec(): TrialSpec {
    return this.#t.spec;
  }

  /**
   * The trial of a fork of this episode (`ServedRun.fork`): `env` restored from this episode's state
   * now; its record starts with this trial's steps so far (replayable from the task).
   */
  fork(spec: TrialSpec, env: Environment, done: (record: Promise<TrialRecord>) => void): ServedTrial {
    const t = this.#t;
    // set by the constructor: a trial starts from its reset
    const start: ServedStart = {
      task: t.task as Task,
      env,
      initial: t.initial as Observation,
      episodeId: spec.id,
    };
    return new ServedTrial(spec, this.#world, start, done, this);
  }

  /** One step of the client's: the action the world stepped with and its result. */
  step(action: Action, result: StepResult): void {
    const t = this.#t;
    const record = stepRecord(t.steps.length, action, result);
    t.steps.push(record);
    t.stats.virtualSeconds = record.t;
  }

  /** The episode ended (terminated, truncated by the world, or cut by the server's step cap). */
  end(ending: EndOfEpisode): void {
    const t = this.#t;
    t.verdict = ending.verdict;
    t.outcome = ending.outcome;
    t.reason = ending.reason;
    this.#finish();
  }

  /**
   * A step or the verifier failed (the world threw, the step's timeout passed): the end the runner
   * records for it, and, as the runner does, the verdict of what the client left unless the world
   * cannot be trusted to judge it.
   */
  fail(end: TrialEnd): void {
    const t = this.#t;
    t.outcome = end.outcome;
    t.reason = end.reason;
    t.fault = end.fault;
    if (t.verdict === undefined && end.outcome !== "contaminated" && end.outcome !== "infra_error") {
      try {
        t.verdict = t.env?.evaluate();
      } catch {
        t.verdict = undefined;
      }
    }
    this.#finish();
  }

  #finish(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#done(this.#record());
  }

  async #record(): Promise<TrialRecord> {
    const t = this.#t;
    const dirty = await this.#cleanStart;
    t.cleanStart = t.env?.capabilities.inspection
      ? dirty === undefined
        ? "passed"
        : "failed"
      : t.cleanStart;
    if (dirty !== undefined) {
      t.outcome = "contaminated";
      t.reason = dirty;
      t.fault = undefined;
    }
    await checkAfterEnd(t, { world: this.#world, checkCleanStart: false });
    return finishTrial(t, this.#startedAt, this.#t0);
  }
}
