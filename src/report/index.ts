export type { CellSummary, ExperimentSummary, Rate } from "./summary.ts";
export { summarizeExperiment } from "./summary.ts";
export { renderTerminalReport } from "./terminal.ts";
export { renderTrajectory } from "./trajectory-text.ts";
export { summarizeTrial } from "./trial-summary.ts";
