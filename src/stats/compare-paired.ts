import { mcnemarExact } from "./mcnemar-exact.ts";
import { newcombePairedInterval } from "./newcombe-paired-interval.ts";
import { pairedBootstrap } from "./paired-bootstrap.ts";

/** One unit (e.g. one task, same seed) run under both conditions: did A pass, did B pass. */
export interface PairedOutcome {
  a: boolean;
  b: boolean;
}

export interface ComparePairedOptions {
  /** Two-sided confidence level for the difference (default 0.95). */
  confidence?: number;
  /** "newcombe" (default): Newcombe's hybrid score method 10; "bootstrap": `pairedBootstrap`. */
  method?: "newcombe" | "bootstrap";
  /** Bootstrap resamples (method "bootstrap" only; default 10000). */
  iterations?: number;
  /** Bootstrap seed (method "bootstrap" only; default 0). */
  seed?: number;
}

export interface PairedComparison {
  pairs: number;
  both_pass: number;
  a_only: number;
  b_only: number;
  neither: number;
  /** Pass rate of A minus pass rate of B, (a_only − b_only) / pairs, with its confidence interval. */
  difference: { estimate: number; ci: [number, number] };
  /** Exact McNemar test on the discordant pairs: b = a_only, c = b_only. */
  mcnemar: { b: number; c: number; p: number };
}

/**
 * Paired comparison of two conditions (two agents, or one agent with and without a harness layer) on
 * the same units: the 2×2 table, the difference in pass rates (A − B) with a confidence interval, and
 * the exact McNemar p-value. Throws a RangeError for no pairs or a non-boolean outcome.
 */
export function comparePaired(
  pairs: readonly PairedOutcome[],
  options: ComparePairedOptions = {},
): PairedComparison {
  if (!Array.isArray(pairs) || pairs.length === 0)
    throw new RangeError("comparePaired needs at least one pair");
  const confidence = options.confidence ?? 0.95;
  const method = options.method ?? "newcombe";
  if (method !== "newcombe" && method !== "bootstrap") {
    throw new RangeError(`unknown method ${String(method)}; use "newcombe" or "bootstrap"`);
  }
  const table = { both_pass: 0, a_only: 0, b_only: 0, neither: 0 };
  pairs.forEach((pair, i) => {
    if (typeof pair.a !== "boolean" || typeof pair.b !== "boolean") {
      throw new RangeError(`pairs[${i}] must have boolean a and b`);
    }
    if (pair.a && pair.b) table.both_pass++;
    else if (pair.a) table.a_only++;
    else if (pair.b) table.b_only++;
    else table.neither++;
  });
  const interval =
    method === "newcombe"
      ? newcombePairedInterval(table, confidence)
      : pairedBootstrap(
          pairs.map((pair) => ({ a: pair.a ? 1 : 0, b: pair.b ? 1 : 0 })),
          { confidence, iterations: options.iterations, seed: options.seed },
        );
  return {
    pairs: pairs.length,
    ...table,
    difference: { estimate: (table.a_only - table.b_only) / pairs.length, ci: [interval.lo, interval.hi] },
    mcnemar: { b: table.a_only, c: table.b_only, p: mcnemarExact(table.a_only, table.b_only) },
  };
}
