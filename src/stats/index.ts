/** Statistics (intervals, k-trial metrics, clustered errors, paired comparisons, power), used by report, rigger, learn and audit. */

export { binomialCdf } from "./binomial-cdf.ts";
export { choose, chooseRatio, logChoose } from "./binomial-coefficient.ts";
export type { ClusteredStandardError, ClusteredValue } from "./clustered-standard-error.ts";
export { clusteredStandardError } from "./clustered-standard-error.ts";
export type { ComparePairedOptions, PairedComparison, PairedOutcome } from "./compare-paired.ts";
export { comparePaired } from "./compare-paired.ts";
export type { IntervalEstimate } from "./interval-estimate.ts";
export { logGamma } from "./log-gamma.ts";
export { mcnemarExact } from "./mcnemar-exact.ts";
export type { PairedTable } from "./newcombe-paired-interval.ts";
export { newcombePairedInterval } from "./newcombe-paired-interval.ts";
export { normalQuantile, twoSidedZ } from "./normal-quantile.ts";
export type { PairedBootstrapOptions, PairedValues } from "./paired-bootstrap.ts";
export { pairedBootstrap } from "./paired-bootstrap.ts";
export type { PairedCell, PairedClusterBootstrapOptions } from "./paired-cluster-bootstrap.ts";
export { pairedClusterBootstrap } from "./paired-cluster-bootstrap.ts";
export type { TaskTrials } from "./pass-at-k.ts";
export { passAtK, passHatK, passHatKInterval } from "./pass-at-k.ts";
export type { SampleSizeForDifferenceOptions } from "./sample-size-for-difference.ts";
export { sampleSizeForDifference } from "./sample-size-for-difference.ts";
export { wilson } from "./wilson.ts";
