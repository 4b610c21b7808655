export type { EpisodeRequest } from "./episodes.ts";
export { type EpisodeParts, type PlayOptions, playEpisodes } from "./episodes.ts";
export {
  type LearnerKind,
  newLearner,
  type TrainExperimentOptions,
  type TrainExperimentPorts,
} from "./experiment-options.ts";
export {
  evaluateFrozen,
  type FamilyScore,
  type FrozenEvaluation,
  type SplitScore,
  splitScore,
} from "./frozen-evaluation.ts";
export {
  type NamedWeakness,
  type RigCheckpoint,
  type RigCheckpointOptions,
  type RigCheckpointPorts,
  type RigCheckpointResult,
  type RigFinding,
  runRigCheckpoints,
  type TopChange,
  topChange,
  weaknessKey,
} from "./rig-checkpoints.ts";
export {
  areaUnderCurve,
  type ComparisonOptions,
  type CurvePoint,
  censoringNote,
  compareStrategies,
  type EpisodesToTarget,
  type EvaluationPoint,
  episodesToTarget,
  type PairedRatio,
  pairedRatio,
  passRateOf,
  type SeedMean,
  type ShareWindow,
  type StrategyComparison,
  type StrategyCurves,
  type StrategyRun,
  type StrategyVsBaseline,
  samplingShares,
  type WorldComparison,
} from "./strategy-comparison.ts";
export { evaluationSet, passRate, type TrainOptions, trainLearner, uniformTask } from "./training.ts";
export {
  type ArmRun,
  type ArmSummary,
  runTransfer,
  type TrainingVariant,
  type TransferArm,
  type TransferOptions,
  type TransferPorts,
  type TransferResult,
  type TransferSeed,
  type VariantSource,
  variantSchedule,
} from "./transfer.ts";
export { defaultHeldout, type TrainSplit, type TrainSplitOptions, trainSplit } from "./transfer-split.ts";
