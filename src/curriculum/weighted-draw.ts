import type { Rng } from "../core/rng.ts";

/**
 * Draws an index with probability proportional to `weights` (non-negative). When every weight is 0
 * the draw is uniform over `fallback` (the eligible indices), or over all indices. One `rng.next()` per draw.
 */
export function weightedDraw(rng: Rng, weights: ArrayLike<number>, fallback?: readonly number[]): number {
  let total = 0;
  for (let i = 0; i < weights.length; i++) total += weights[i];
  const u = rng.next();
  if (!(total > 0)) {
    const pool = fallback ?? Array.from({ length: weights.length }, (_, i) => i);
    if (pool.length === 0) throw new RangeError("draw from an empty key space");
    return pool[Math.min(pool.length - 1, Math.floor(u * pool.length))];
  }
  let r = u * total;
  let last = -1;
  for (let i = 0; i < weights.length; i++) {
    if (weights[i] <= 0) continue;
    last = i;
    r -= weights[i];
    if (r < 0) return i;
  }
  return last;
}

/** Weights normalized to sum 1 (all zero: uniform over the indices where `mask` is 1). */
export function normalize(weights: Float64Array, mask: Uint8Array): Float64Array {
  let total = 0;
  for (let i = 0; i < weights.length; i++) total += weights[i] * mask[i];
  const out = new Float64Array(weights.length);
  if (total > 0) {
    for (let i = 0; i < weights.length; i++) out[i] = (weights[i] * mask[i]) / total;
    return out;
  }
  let n = 0;
  for (let i = 0; i < mask.length; i++) n += mask[i];
  if (n === 0) throw new RangeError("no eligible key to sample");
  for (let i = 0; i < mask.length; i++) out[i] = mask[i] / n;
  return out;
}
