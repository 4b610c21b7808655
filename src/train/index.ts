export { type EpisodeParts, type PlayOptions, playEpisodes } from "./episodes.ts";
export {
  areaUnderCurve,
  type ComparisonOptions,
  type CurvePoint,
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
