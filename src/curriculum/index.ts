export { BaseSampler, type BaseSamplerOptions } from "./base-sampler.ts";
export { createSampler, DEFAULT_STRATEGY, STRATEGIES, type Strategy } from "./create-sampler.ts";
export {
  Curriculum,
  type CurriculumOptions,
  type CurriculumSnapshot,
  createCurriculum,
  episodeSeed,
  type Feedback,
  type GeneratedTask,
  type Performance,
} from "./curriculum.ts";
export type { CurriculumGym, GymWorlds } from "./curriculum-gym.ts";
export {
  type CurriculumWindow,
  concentration,
  curriculumHealth,
  curriculumWindows,
  difficultyRising,
  duplicateTasks,
  evaluationPassRate,
  type HealthFinding,
  type HealthOptions,
  processByKey,
  regressionInstability,
} from "./curriculum-health.ts";
export type {
  CurriculumEpisode,
  CurriculumEvaluation,
  CurriculumInfraAttempt,
  GenerationRecord,
} from "./curriculum-records.ts";
export {
  type CurriculumResult,
  type CurriculumRunConfig,
  type CurriculumRunOptions,
  curriculumConfig,
  readCurriculum,
  runCurriculum,
} from "./curriculum-run.ts";
export {
  type CurriculumRunRow,
  CurriculumStore,
  openCurriculumStore,
  requireRun,
} from "./curriculum-store.ts";
export { defaultSplit } from "./default-split.ts";
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
export {
  type GenerationOutcome,
  type GenerationRequest,
  generateOne,
} from "./generation-batch.ts";
export { type GenerationThreadOptions, generateInThread } from "./generation-thread.ts";
export { type CurriculumHistory, MemoryHistory } from "./history.ts";
export { type HorizonStage, horizonSchedule, parseHorizon } from "./horizon-schedule.ts";
export { KeyBook, type KeyBookState } from "./key-book.ts";
export { type LearnabilityOptions, LearnabilitySampler, topIndices } from "./learnability-sampler.ts";
export { type LearningProgressOptions, LearningProgressSampler } from "./learning-progress-sampler.ts";
export { type PlrOptions, PlrSampler } from "./plr-sampler.ts";
export {
  addProcess,
  NEUTRAL_TOOL,
  type ProcessSummary,
  ProcessTracker,
  processPenalty,
  READ_TOOL,
  summarizeProcess,
  type TransitionSignals,
} from "./process-feedback.ts";
export { type GateVerdict, gateTask, NULL_AGENT } from "./quality-gate.ts";
export { RecoveryLearnabilitySampler, type RecoveryOptions } from "./recovery-learnability-sampler.ts";
export {
  heldoutManifest,
  type ManifestTask,
  regressionManifest,
  type TaskManifest,
} from "./regression-manifest.ts";
export {
  approvedItems,
  type ReviewItem,
  recordReview,
  renderItem,
  sampleItems,
  taskReviewItems,
  VARIANT_POOL,
  variantKnownGood,
  variantReviewItems,
} from "./review-queue.ts";
export { type RunSpecsOptions, runSpecs } from "./run-specs.ts";
export { runSplit, type SplitRunResult, splitTasks } from "./run-split.ts";
export type { EpisodeResult, SampleOptions, Sampler, SamplerSnapshot } from "./sampler.ts";
export { ServedCurriculum, type ServedCurriculumOptions } from "./serve-task-source.ts";
export {
  parseSplitFile,
  readSplitFile,
  SPLIT_NAMES,
  type SplitFile,
  type SplitName,
  type SplitTask,
  splitName,
} from "./split-file.ts";
export { type PlannedTask, plannedSpecs } from "./split-specs.ts";
export type { CurriculumDatabase, CurriculumVariantsTable } from "./store-tables.ts";
/**
 * Variants (the rigger's output) join the dynamic split: `store.addVariant({variant, variantId,
 * provenance, status?})` on a `CurriculumStore` (`openCurriculumStore(path)`), `store.listVariants({status?})`,
 * and `splitWithVariants(split, variants, gym, {requireReview?, approved?})` — what a new
 * `proving curriculum run` samples (the accepted stored variants join its dynamic space).
 */
export { type StoredVariant, splitWithVariants, type VariantInput } from "./stored-variants.ts";
export { type TargetBandOptions, TargetBandSampler } from "./target-band-sampler.ts";
export { readTaskKey, type TaskKey, taskKeyId } from "./task-key.ts";
export {
  baseKey,
  fillPool,
  type PoolOptions,
  poolItemId,
  poolRequests,
  poolSeeds,
  type TaskCache,
} from "./task-pool.ts";
export { buildTaskSpace, familyOf, type SpaceEntry, type TaskSpace } from "./task-space.ts";
export { UniformSampler } from "./uniform-sampler.ts";
export { normalize, weightedDraw } from "./weighted-draw.ts";
