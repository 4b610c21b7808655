export { summarizeTrial } from "../core/trial-summary.ts";
export type { PairedComparison } from "../stats/index.ts";
export {
  comparePaired,
  mcnemarExact,
  pairedBootstrap,
  passAtK,
  passHatK,
  sampleSizeForDifference,
  wilson,
} from "../stats/index.ts";
export type { ExperimentComparison } from "./compare.ts";
export { compareExperiments } from "./compare.ts";
export type { HtmlReport, HtmlReportOptions } from "./html/index.ts";
export { buildHtmlReport, defaultReportPath, writeHtmlReport } from "./html/index.ts";
export type { CellSummary, ExperimentSummary, Rate } from "./summary.ts";
export { summarizeExperiment } from "./summary.ts";
export { renderTerminalReport } from "./terminal.ts";
export { renderTrajectory } from "./trajectory-text.ts";
