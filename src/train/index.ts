export { type EpisodeParts, type PlayOptions, playEpisodes } from "./episodes.ts";
export { evaluationSet, passRate, type TrainOptions, trainLearner, uniformTask } from "./training.ts";
