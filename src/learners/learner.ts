/**
 * A reference learner as an Agent: each session chooses among the admissible actions of the
 * current observation (given to `act` as its second argument: `{admissible}`), remembers its
 * decisions, and learns from the verdict in the session's end hook (`end(record)`: reward 1 when
 * the verdict passed, else 0). Frozen, it acts greedily and never updates. One policy is shared
 * by every session; updates happen in the order sessions end, so a run that ends them in a fixed
 * order (trials in manifest order) is deterministic.
 */
import type {
  ActContext,
  Agent,
  AgentAction,
  AgentSession,
  EpisodeInfo,
  Observation,
  TrialRecordSummary,
} from "../core/contracts.ts";
import { isInfraOutcome } from "../core/contracts.ts";
import { ProvingError } from "../core/errors.ts";
import { cloneJson, type JsonObject } from "../core/json.ts";
import { Rng } from "../core/rng.ts";
import { actionKey, EpisodeMemory } from "./features.ts";
import type { LearnerCore, LearnerStep } from "./learner-core.ts";
import { LinearSoftmax, PG_DEFAULTS, type PgConfig } from "./linear-softmax.ts";
import {
  checkPolicy,
  emptyHistory,
  type LearnerId,
  type LearnerPolicy,
  policyHash,
  recordEpisode,
  type TrainingHistory,
} from "./policy.ts";
import { Q_DEFAULTS, type QConfig, QTable } from "./q-table.ts";

/** A learner's episode as it remembers it: its decisions. */
export interface LearnerTrajectory {
  steps: LearnerStep[];
}

export interface LearnerOptions {
  /** The learner's randomness (exploration, sampling): injected, saved with the policy. */
  rng: Rng;
  /** Greedy and never updated (default false). */
  frozen?: boolean;
}

/** A reference learner (`learner.q@1`, `learner.pg@1`): an Agent whose sessions share one policy. */
export class Learner implements Agent {
  /** It acts only with the admissible actions given to `act` (`{admissible}`): a runner must pass them. */
  readonly usesAdmissibleActions = true;
  frozen: boolean;
  private readonly rng: Rng;

  private constructor(
    readonly id: LearnerId,
    private readonly config: JsonObject,
    private readonly core: LearnerCore,
    rng: Rng,
    private readonly history: TrainingHistory,
    frozen: boolean,
  ) {
    this.rng = rng;
    this.frozen = frozen;
  }

  /** A tabular Q-learner with `config` over `Q_DEFAULTS` (alpha 0.3, gamma 0.95, lambda 0.95, eps 0.1, q0 0.5). */
  static q(options: LearnerOptions & { config?: Partial<QConfig> }): Learner {
    const config = { ...Q_DEFAULTS, ...options.config };
    return Learner.fresh("learner.q@1", config, new QTable(config), options);
  }

  /** A linear softmax policy trained by REINFORCE with a baseline, `config` over `PG_DEFAULTS`. */
  static pg(options: LearnerOptions & { config?: Partial<PgConfig> }): Learner {
    const config = { ...PG_DEFAULTS, ...options.config };
    return Learner.fresh("learner.pg@1", config, new LinearSoftmax(config), options);
  }

  private static fresh(
    id: LearnerId,
    config: QConfig | PgConfig,
    core: LearnerCore,
    o: LearnerOptions,
  ): Learner {
    return new Learner(id, { ...config }, core, o.rng, emptyHistory(), !!o.frozen);
  }

  /** The learner a saved policy describes (its hash checked), with its random numbers where they were. */
  static restore(policy: LearnerPolicy, options: { frozen?: boolean } = {}): Learner {
    const p = checkPolicy(cloneJson(policy));
    const rng = Rng.fromState(p.rng);
    const core =
      p.learner === "learner.q@1"
        ? new QTable(p.config as unknown as QConfig, p.params.table as Record<string, Record<string, number>>)
        : new LinearSoftmax(
            p.config as unknown as PgConfig,
            p.params.weights as Record<string, number>,
            Number(p.params.baseline),
          );
    return new Learner(p.learner, p.config, core, rng, p.history, !!options.frozen);
  }

  /** The policy as plain JSON (a copy), content-hashed. */
  policy(): LearnerPolicy {
    const body: Omit<LearnerPolicy, "hash"> = {
      learner: this.id,
      version: 1,
      config: cloneJson(this.config),
      params: cloneJson(this.core.params()),
      rng: this.rng.saveState(),
      history: cloneJson(this.history),
    };
    return { ...body, hash: policyHash(body) };
  }

  /** The training history so far (a copy). */
  trainingHistory(): TrainingHistory {
    return cloneJson(this.history);
  }

  start(_episode: EpisodeInfo): LearnerSession {
    return new LearnerSession(this);
  }

  /** @internal the session's choice. */
  choose(state: string[], options: string[]): number {
    return this.core.choose(state, options, this.rng, this.frozen);
  }

  /**
   * Learns from one episode and its reward (1 passed, 0 not): what the end hook calls. Frozen, it
   * changes nothing (its policy, random state and training history stay as they were).
   */
  learnFromEpisode(trajectory: LearnerTrajectory, reward: number): void {
    if (this.frozen) return;
    const updated = trajectory.steps.length > 0;
    if (updated) this.core.learn(trajectory.steps, reward);
    recordEpisode(this.history, reward > 0, updated);
  }
}

/** One episode of a learner. */
export class LearnerSession implements AgentSession {
  private readonly memory = new EpisodeMemory();
  private readonly steps: LearnerStep[] = [];
  private ended = false;

  constructor(private readonly learner: Learner) {}

  async act(observation: Observation, context: ActContext = {}): Promise<AgentAction> {
    const list = context.admissible;
    if (!list) {
      throw new ProvingError(
        "capability_missing",
        `${this.learner.id} chooses among admissible actions: none were given with the observation`,
      );
    }
    if (list.length === 0) {
      throw new ProvingError(
        "capability_missing",
        `${this.learner.id}: the admissible-actions list is empty`,
      );
    }
    this.memory.observe(observation);
    const state = this.memory.stateFeatures();
    const options = list.map((a) => actionKey(a, this.memory));
    const i = this.learner.choose(state, options);
    const chosen = list[i];
    this.memory.sent(chosen);
    this.steps.push({ state, action: options[i], options });
    return { tool: chosen.tool, args: cloneJson(chosen.args) };
  }

  /**
   * The verdict's hook: reward 1 when the trial passed, else 0 (failed, violated, out of budget). An
   * episode the infrastructure spoiled (`infra_error`, `contaminated`, `missing`) teaches nothing.
   */
  async end(record: TrialRecordSummary): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (isInfraOutcome(record.outcome)) return;
    this.learner.learnFromEpisode({ steps: this.steps }, record.outcome === "passed" ? 1 : 0);
  }
}
