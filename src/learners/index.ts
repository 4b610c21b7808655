export { actionKey, EpisodeMemory } from "./features.ts";
export {
  Learner,
  type LearnerOptions,
  LearnerSession,
  type LearnerTrajectory,
} from "./learner.ts";
export type { LearnerCore, LearnerStep } from "./learner-core.ts";
export { LinearSoftmax, PG_DEFAULTS, type PgConfig } from "./linear-softmax.ts";
export {
  checkPolicy,
  type LearnerId,
  type LearnerPolicy,
  policyHash,
  type TrainingHistory,
} from "./policy.ts";
export { Q_DEFAULTS, type QConfig, QTable } from "./q-table.ts";
export { randomAdmissibleAgent } from "./random-admissible.ts";
