/** A point estimate with a two-sided confidence interval [lo, hi]. */
export interface IntervalEstimate {
  estimate: number;
  lo: number;
  hi: number;
}
