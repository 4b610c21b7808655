import type { Rng } from "../../core/rng.ts";

/** A rate limit on a world's polling tools: `limit` calls per `window` seconds (0 = no limit). */
export interface RateLimit {
  limit: number;
  window: number;
}

/** An inclusive range a generator draws from, `[min, max]`. */
export type Range = [number, number];

/** A draw from an inclusive range. */
export const drawFrom = (rng: Rng, range: Range): number => rng.int(range[0], range[1]);

/** Virtual seconds every tool call takes at a difficulty (1..5): 1, 1, 2, 3, 3. */
export const latencyFor = (d: number): number => (d <= 2 ? 1 : d === 3 ? 2 : 3);

/** The rate limit at a difficulty: none below 4, then 4 and 3 calls a minute. */
export const rateLimitFor = (d: number): RateLimit =>
  d >= 4 ? { limit: d === 4 ? 4 : 3, window: 60 } : { limit: 0, window: 60 };

/** Tools whose first call answers `unavailable` at a difficulty: `tool` at 5, none below. */
export const transientUnavailableFor = (d: number, tool: string): string[] => (d >= 5 ? [tool] : []);
