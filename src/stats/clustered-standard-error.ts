import { requireFinite } from "./argument-guards.ts";

/** One observation (e.g. one trial's score) and the cluster it belongs to (e.g. its task id). */
export interface ClusteredValue {
  cluster: string;
  value: number;
}

export interface ClusteredStandardError {
  /** Mean of all observations. */
  mean: number;
  /** Cluster-robust (CR1) standard error of the mean; NaN with fewer than two clusters. */
  se: number;
  /** The i.i.d. standard error s / sqrt(n) (sample s.d.), for comparison; NaN with one observation. */
  naiveSe: number;
  /** Number of distinct clusters G. */
  clusters: number;
  /** Number of observations n. */
  n: number;
}

/**
 * Mean of clustered observations with its cluster-robust standard error. Trials of the same task are
 * correlated (an easy task passes again), so the i.i.d. standard error understates the uncertainty.
 *
 * The mean is the OLS fit of y on a constant, so with residuals e_i = y_i − ȳ and cluster sums
 * S_g = Σ_{i∈g} e_i the sandwich variance is V_CR0 = Σ_g S_g² / n². The CR1 small-sample factor,
 * as in Stata's `vce(cluster)`, is G/(G − 1) · (n − 1)/(n − K) with K = 1 regressor, i.e. G/(G − 1):
 *
 *   se = sqrt( G/(G − 1) · Σ_g S_g² ) / n
 *
 * With one observation per cluster this equals the naive s/√n exactly. The naive SE uses the sample
 * standard deviation: naiveSe = sqrt( Σ e_i² / (n − 1) ) / √n. Throws a RangeError for an empty list or
 * a non-finite value.
 */
export function clusteredStandardError(values: readonly ClusteredValue[]): ClusteredStandardError {
  if (!Array.isArray(values) || values.length === 0) {
    throw new RangeError("clusteredStandardError needs at least one value");
  }
  const n = values.length;
  let total = 0;
  values.forEach((v, i) => {
    requireFinite(`values[${i}].value`, v.value);
    total += v.value;
  });
  const mean = total / n;
  const clusterSums = new Map<string, number>();
  let sumSquares = 0;
  for (const { cluster, value } of values) {
    const e = value - mean;
    sumSquares += e * e;
    clusterSums.set(cluster, (clusterSums.get(cluster) ?? 0) + e);
  }
  const g = clusterSums.size;
  let meat = 0;
  for (const s of clusterSums.values()) meat += s * s;
  return {
    mean,
    se: g < 2 ? Number.NaN : Math.sqrt((g / (g - 1)) * meat) / n,
    naiveSe: n < 2 ? Number.NaN : Math.sqrt(sumSquares / (n - 1) / n),
    clusters: g,
    n,
  };
}
