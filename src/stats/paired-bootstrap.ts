import { Rng } from "../core/rng.ts";
import { requireCount, requireFinite, requireOpenUnit } from "./argument-guards.ts";
import type { IntervalEstimate } from "./interval-estimate.ts";

/** One unit (e.g. one task) measured under both conditions A and B. */
export interface PairedValues {
  a: number;
  b: number;
}

export interface PairedBootstrapOptions {
  /** Number of bootstrap resamples (default 10000). */
  iterations?: number;
  /** Two-sided confidence level in (0, 1) (default 0.95). */
  confidence?: number;
  /** Seed for `Rng.seeded` (default 0), so the same input always gives the same interval. */
  seed?: number;
  /** An already-seeded generator to draw from instead of `seed` (it is advanced). */
  rng?: Rng;
}

/**
 * Type-7 sample quantile (linear interpolation between order statistics; the default of R and
 * NumPy): h = (m − 1)·q, value = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋ + 1] − x[⌊h⌋]). `sorted` is ascending.
 */
export function quantileSorted(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lower = Math.floor(h);
  const upper = Math.min(lower + 1, sorted.length - 1);
  return sorted[lower] + (h - lower) * (sorted[upper] - sorted[lower]);
}

/**
 * Paired percentile bootstrap for a difference of means. The estimate is
 *
 *   difference = mean(a) − mean(b)   (positive when A scores higher)
 *
 * computed on the data. Each resample draws n pairs with replacement (pairs stay together, so the
 * correlation between A and B on the same unit is kept) and records the mean of (a − b); the interval
 * is the (1 − confidence)/2 and (1 + confidence)/2 type-7 quantiles of those resampled differences.
 * Deterministic: randomness comes only from `Rng.seeded(seed)` or the injected `rng`.
 * Throws a RangeError for no pairs, non-finite values, iterations < 1 or confidence outside (0, 1).
 */
export function pairedBootstrap(
  pairs: readonly PairedValues[],
  options: PairedBootstrapOptions = {},
): IntervalEstimate {
  const iterations = options.iterations ?? 10_000;
  const confidence = options.confidence ?? 0.95;
  const seed = options.seed ?? 0;
  if (!Array.isArray(pairs) || pairs.length === 0)
    throw new RangeError("pairedBootstrap needs at least one pair");
  requireCount("iterations", iterations);
  if (iterations < 1) throw new RangeError("iterations must be at least 1");
  requireOpenUnit("confidence", confidence);
  requireFinite("seed", seed);
  const n = pairs.length;
  const differences = new Float64Array(n);
  let total = 0;
  pairs.forEach((pair, i) => {
    requireFinite(`pairs[${i}].a`, pair.a);
    requireFinite(`pairs[${i}].b`, pair.b);
    differences[i] = pair.a - pair.b;
    total += differences[i];
  });
  const rng = options.rng ?? Rng.seeded(seed);
  const resampled = new Float64Array(iterations);
  for (let r = 0; r < iterations; r++) {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += differences[Math.floor(rng.next() * n)];
    resampled[r] = sum / n;
  }
  resampled.sort();
  const tail = (1 - confidence) / 2;
  return {
    estimate: total / n,
    lo: quantileSorted(resampled, tail),
    hi: quantileSorted(resampled, 1 - tail),
  };
}
