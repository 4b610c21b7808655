/**
 * The rollouts export, for RL trainers: per step the observation the agent acted on, its action, the
 * reward, the next observation and the termination flags; per trial the verdict, the outcome, the
 * verdict's violations and the return. A violation costs: `return` is the sum of the step rewards
 * (the world's: the verdict's score on the closing step) minus `violation_penalty`, 1 when the
 * verdict holds any violation (whatever the outcome), else 0. Scores lie in [0, 1], so a violated
 * trial's return lies in [-1, 0] and never reaches a clean trial's that scored anything; the step
 * rewards stay the world's (`rolloutTrajectory` reads a line back into what the trial's trajectory
 * hash covers). Schema version 2 (version 1 had no violations, and its return no penalty).
 */
import type {
  Action,
  Observation,
  Outcome,
  Split,
  StepRecord,
  TrialRecord,
  Verdict,
  Violation,
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

/** What a trial with at least one violation loses from its return. */
export const VIOLATION_PENALTY = 1;

export interface RolloutLine {
  schemaVersion: 2;
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
  /** The verdict's violations (code, step in the world's trace, detail); empty without a verdict. */
  violations: Violation[];
  /** `VIOLATION_PENALTY` when there is any violation, else 0. */
  violation_penalty: number;
  /** Sum of the step rewards minus `violation_penalty`. */
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
  const violations = record.verdict?.violations ?? [];
  const penalty = violations.length > 0 ? VIOLATION_PENALTY : 0;
  return {
    schemaVersion: 2,
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
    violations,
    violation_penalty: penalty,
    return: steps.reduce((sum, s) => sum + s.reward, 0) - penalty,
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
