export { BaseSampler, type BaseSamplerOptions } from "./base-sampler.ts";
export { createSampler, DEFAULT_STRATEGY, STRATEGIES, type Strategy } from "./create-sampler.ts";
export {
  type DifficultyChange,
  DifficultyController,
  type DifficultyOptions,
  type DifficultyState,
} from "./difficulty-controller.ts";
export {
  type DynamicSampleResult,
  dynamicSample,
  informative,
  type RolloutGroup,
} from "./dynamic-sampling.ts";
export { type HorizonStage, horizonSchedule, parseHorizon } from "./horizon-schedule.ts";
export { KeyBook, type KeyBookState } from "./key-book.ts";
export { type LearnabilityOptions, LearnabilitySampler, topIndices } from "./learnability-sampler.ts";
export { type LearningProgressOptions, LearningProgressSampler } from "./learning-progress-sampler.ts";
export { type PlrOptions, PlrSampler } from "./plr-sampler.ts";
export type { EpisodeResult, SampleOptions, Sampler, SamplerSnapshot } from "./sampler.ts";
export { type TargetBandOptions, TargetBandSampler } from "./target-band-sampler.ts";
export { readTaskKey, type TaskKey, taskKeyId } from "./task-key.ts";
export { UniformSampler } from "./uniform-sampler.ts";
export { normalize, weightedDraw } from "./weighted-draw.ts";
