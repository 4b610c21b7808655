export {
  buildHtmlReport,
  defaultReportPath,
  type HtmlReport,
  type HtmlReportOptions,
  writeHtmlReport,
} from "./build-report.ts";
export {
  type ComparisonSide,
  compareForReport,
  type ReportComparison,
  reportComparisonJson,
} from "./comparison.ts";
export { curriculumSection } from "./curriculum-section.ts";
export { type ExperimentRows, loadExperimentRows } from "./experiment-rows.ts";
export { type PageRow, pageRows } from "./page-data.ts";
export { type PackedTrajectories, type PackedTrial, packTrajectories } from "./trajectory-pack.ts";
