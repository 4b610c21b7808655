import type { WorldDefinition } from "../core/registry.ts";
import { Rng } from "../core/rng.ts";
import { Learner } from "../learners/learner.ts";
import type { TrialRecorder } from "../runner/recorder.ts";
import type { EpisodeParts } from "./episodes.ts";
import type { TrainSplit } from "./transfer-split.ts";

export type LearnerKind = "q" | "pg";

/** What the training experiments (transfer, rigging the learner) are given: who learns, where, on what. */
export interface TrainExperimentOptions {
  /** Experiment id prefix of every evaluation and rig recorded. */
  id: string;
  world: WorldDefinition;
  learner: LearnerKind;
  /** One learner per seed; results are paired by seed. */
  seeds: readonly number[];
  split: TrainSplit;
  /** Most agent steps per episode (default 60). */
  maxSteps?: number;
}

/** The ports the training experiments share. */
export interface TrainExperimentPorts {
  /** Worlds and the environment factory (the harness's, when variants are played). */
  parts: EpisodeParts;
  /** Where an evaluation's trials are recorded (default: memory). */
  recorder?(experimentId: string): TrialRecorder;
  onEvent?(message: string): void;
}

/** A fresh learner of `kind` whose numbers come from `Rng.seeded(seed, "learner")`. */
export function newLearner(kind: LearnerKind, seed: number): Learner {
  const rng = Rng.seeded(seed, "learner");
  return kind === "q" ? Learner.q({ rng }) : Learner.pg({ rng });
}
