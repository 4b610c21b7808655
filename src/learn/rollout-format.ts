/**
 * The rollouts export, for RL trainers: per step the observation the agent acted on, its action, the
 * reward, the next observation and the termination flags; per trial the verdict, the outcome and the
 * return. `rolloutTrajectory` reads a line back into what the trial's trajectory hash covers.
 */
import type {
  Action,
  Observation,
  Outcome,
  Split,
  StepRecord,
  TrialRecord,
  Verdict,
} from "../core/contracts.ts";
import { type ChatTool, chatTools, trialTools } from "./chat-messages.ts";

export interface RolloutStep {
  index: number;
  observation: Observation;
  action: Action;
  reward: number;
  next_observation: Observation;
  terminated: boolean;
  truncated: boolean;
  /** Virtual seconds after the step. */
  t: number;
  /** Replayed by a Setup layer, not chosen by the agent. */
  setup: boolean;
}

export interface RolloutLine {
  schemaVersion: 1;
  format: "rollout";
  trial_id: string;
  experiment_id: string;
  world: string;
  variant_id: string | null;
  task_id: string;
  family: string;
  difficulty: number;
  seed: number;
  split: Split;
  agent: string;
  tools: ChatTool[];
  initial_observation: Observation;
  steps: RolloutStep[];
  verdict: Verdict | null;
  outcome: Outcome;
  passed: boolean;
  /** Sum of the step rewards. */
  return: number;
}

export function rolloutLine(record: TrialRecord): RolloutLine {
  const initial = record.initial as Observation;
  let before: Observation = initial;
  const steps = record.steps.map((s) => {
    const step: RolloutStep = {
      index: s.index,
      observation: before,
      action: s.action,
      reward: s.reward,
      next_observation: s.observation,
      terminated: s.terminated,
      truncated: s.truncated,
      t: s.t,
      setup: s.setup === true,
    };
    before = s.observation;
    return step;
  });
  return {
    schemaVersion: 1,
    format: "rollout",
    trial_id: record.spec.id,
    experiment_id: record.spec.experimentId,
    world: record.spec.world,
    variant_id: record.spec.variantId ?? null,
    task_id: record.task.id,
    family: record.spec.family,
    difficulty: record.spec.difficulty,
    seed: record.spec.seed,
    split: record.task.split,
    agent: record.spec.agent.id,
    tools: chatTools(trialTools(record)),
    initial_observation: initial,
    steps,
    verdict: record.verdict ?? null,
    outcome: record.outcome,
    passed: record.outcome === "passed",
    return: steps.reduce((sum, s) => sum + s.reward, 0),
  };
}

/** The deterministic trajectory a rollout line holds (what `trajectoryHash` covers). */
export function rolloutTrajectory(line: RolloutLine): {
  initial: Observation;
  steps: StepRecord[];
  outcome: Outcome;
  verdict?: Verdict;
} {
  return {
    initial: line.initial_observation,
    steps: line.steps.map((s) => ({
      index: s.index,
      action: s.action,
      observation: s.next_observation,
      reward: s.reward,
      terminated: s.terminated,
      truncated: s.truncated,
      t: s.t,
      ...(s.setup ? { setup: true } : {}),
    })),
    outcome: line.outcome,
    ...(line.verdict ? { verdict: line.verdict } : {}),
  };
}
