/** Provider faults the fake server can inject: throttling, server errors, hangs, latency, malformed or oversized 200s. */
import type { FakeRequest } from "./conversation.ts";

export interface FaultRule {
  /** HTTP status to answer (429, 500, 503, 529...). Ignored when `hang` is set. Default 500. */
  status?: number;
  /** Never answer (the client's timeout has to fire). */
  hang?: boolean;
  /**
   * Answer 200 with a malformed body: `empty` (no bytes), `non-json` (text), `html` (an error page
   * as a proxy sends it), `huge` (`bodyBytes` of JSON-looking padding, plain) or `gzip-bomb`
   * (`bodyBytes` of zeros, gzip-compressed to a few KB, `content-encoding: gzip`).
   */
  body?: "empty" | "non-json" | "html" | "huge" | "gzip-bomb";
  /** Size of a `huge` or `gzip-bomb` body before compression (default 64 MiB). */
  bodyBytes?: number;
  /** For 429/503/529: sent as `retry-after-ms` and `retry-after` (whole seconds, rounded up). */
  retryAfterMs?: number;
  /** Triggers (any of them; none given = always): the first N requests to the server... */
  first?: number;
  /** ...every Nth request (N, 2N, ...)... */
  every?: number;
  /** ...these request numbers (1-based)... */
  requests?: number[];
  /** ...with this probability (seeded, so a run is repeatable for the same request order). */
  probability?: number;
  /** Filters: only conversations with at least this many assistant turns (cut an episode short). */
  turnFrom?: number;
  /** Only requests for this model. */
  model?: string;
}

export interface FaultPlan {
  /** Delay before every successful answer, ms. */
  latencyMs?: number;
  /** Answer 429 when more than this many requests are in flight (a concurrency-limited provider). */
  maxConcurrent?: number;
  /** retry-after sent with the concurrency 429s (default 100 ms). */
  retryAfterMs?: number;
  rules?: FaultRule[];
  /** Seed of the probability rules. */
  seed?: number;
}

export type FaultDecision =
  | { kind: "none" }
  | { kind: "hang" }
  | { kind: "body"; body: NonNullable<FaultRule["body"]>; bytes: number }
  | { kind: "status"; status: number; retryAfterMs?: number };

/** Decides, request by request, which fault (if any) applies. */
export class FaultInjector {
  private state: number;

  constructor(private readonly plan: FaultPlan) {
    this.state = (plan.seed ?? 1) >>> 0 || 1;
  }

  /** A seeded uniform number in [0, 1) (xorshift32). */
  private random(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 2 ** 32;
  }

  decide(n: number, request: FakeRequest, inFlight: number): FaultDecision {
    const plan = this.plan;
    for (const rule of plan.rules ?? []) {
      if (rule.model !== undefined && rule.model !== request.model) continue;
      if (rule.turnFrom !== undefined && request.turn < rule.turnFrom) continue;
      const triggers = [rule.first, rule.every, rule.requests, rule.probability].some((t) => t !== undefined);
      const fires =
        !triggers ||
        (rule.first !== undefined && n <= rule.first) ||
        (rule.every !== undefined && rule.every > 0 && n % rule.every === 0) ||
        (rule.requests?.includes(n) ?? false) ||
        (rule.probability !== undefined && this.random() < rule.probability);
      if (!fires) continue;
      if (rule.hang) return { kind: "hang" };
      if (rule.body) return { kind: "body", body: rule.body, bytes: rule.bodyBytes ?? 64 << 20 };
      const status = rule.status ?? 500;
      return rule.retryAfterMs !== undefined
        ? { kind: "status", status, retryAfterMs: rule.retryAfterMs }
        : { kind: "status", status };
    }
    if (plan.maxConcurrent !== undefined && inFlight > plan.maxConcurrent) {
      return { kind: "status", status: 429, retryAfterMs: plan.retryAfterMs ?? 100 };
    }
    return { kind: "none" };
  }
}
