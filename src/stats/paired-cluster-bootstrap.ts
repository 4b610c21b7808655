import { Rng } from "../core/rng.ts";
import { requireCount, requireFinite, requireOpenUnit } from "./argument-guards.ts";
import type { IntervalEstimate } from "./interval-estimate.ts";
import { quantileSorted } from "./paired-bootstrap.ts";

/**
 * One cell of a paired, two-level design: an outer cluster (e.g. a training seed), an inner cluster
 * within it (e.g. a task family), and the two conditions' scores on it (`a`, `b`, e.g. pass rates of
 * the same tasks), with the cell's weight (e.g. its number of tasks; default 1).
 */
export interface PairedCell {
  outer: string;
  inner: string;
  a: number;
  b: number;
  weight?: number;
}

export interface PairedClusterBootstrapOptions {
  /** Number of bootstrap resamples (default 10000). */
  iterations?: number;
  /** Two-sided confidence level in (0, 1) (default 0.95). */
  confidence?: number;
  /** Seed for `Rng.seeded` (default 0): the same input always gives the same interval. */
  seed?: number;
}

/**
 * Paired two-level (nested) cluster bootstrap of a weighted mean difference b − a:
 *
 *   difference = Σ w·(b − a) / Σ w   over all cells
 *
 * Each resample draws the outer clusters with replacement and, within each drawn outer cluster, its
 * inner clusters with replacement (a cell's a and b stay together, so the pairing is kept, and cells
 * of one outer cluster move together, so their correlation is kept); the interval is the type-7
 * quantiles of the resampled differences. With one outer cluster only the inner level varies. A
 * resample whose weights sum to 0 is skipped. Deterministic given `seed`. Throws a RangeError for no
 * cells, a non-finite score, a negative weight, iterations < 1 or confidence outside (0, 1).
 */
export function pairedClusterBootstrap(
  cells: readonly PairedCell[],
  options: PairedClusterBootstrapOptions = {},
): IntervalEstimate {
  const iterations = options.iterations ?? 10_000;
  const confidence = options.confidence ?? 0.95;
  if (!Array.isArray(cells) || cells.length === 0)
    throw new RangeError("pairedClusterBootstrap needs at least one cell");
  requireCount("iterations", iterations);
  if (iterations < 1) throw new RangeError("iterations must be at least 1");
  requireOpenUnit("confidence", confidence);
  requireFinite("seed", options.seed ?? 0);
  // outer cluster -> inner cluster -> [weighted difference sum, weight sum]
  const groups = new Map<string, Map<string, [number, number]>>();
  let total = 0;
  let weights = 0;
  cells.forEach((c, i) => {
    requireFinite(`cells[${i}].a`, c.a);
    requireFinite(`cells[${i}].b`, c.b);
    const w = c.weight ?? 1;
    requireFinite(`cells[${i}].weight`, w);
    if (w < 0) throw new RangeError(`cells[${i}].weight must not be negative`);
    let inner = groups.get(c.outer);
    if (!inner) {
      inner = new Map();
      groups.set(c.outer, inner);
    }
    const sums = inner.get(c.inner) ?? [0, 0];
    sums[0] += w * (c.b - c.a);
    sums[1] += w;
    inner.set(c.inner, sums);
    total += w * (c.b - c.a);
    weights += w;
  });
  const outer = [...groups.values()].map((inner) => [...inner.values()]);
  const rng = Rng.seeded(options.seed ?? 0, "paired-cluster-bootstrap");
  const resampled: number[] = [];
  for (let r = 0; r < iterations; r++) {
    let sum = 0;
    let weight = 0;
    for (let o = 0; o < outer.length; o++) {
      const inner = outer[Math.floor(rng.next() * outer.length)];
      for (let j = 0; j < inner.length; j++) {
        const [s, w] = inner[Math.floor(rng.next() * inner.length)];
        sum += s;
        weight += w;
      }
    }
    if (weight > 0) resampled.push(sum / weight);
  }
  const sorted = Float64Array.from(resampled).sort();
  const tail = (1 - confidence) / 2;
  const estimate = weights > 0 ? total / weights : 0;
  if (sorted.length === 0) return { estimate, lo: estimate, hi: estimate };
  return { estimate, lo: quantileSorted(sorted, tail), hi: quantileSorted(sorted, 1 - tail) };
}
