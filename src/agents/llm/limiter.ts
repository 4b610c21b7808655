/**
 * An adaptive (AIMD) concurrency limiter, one per provider endpoint and shared by every episode of
 * the process. It starts in slow start (the limit grows by one per success, doubling each round trip)
 * until the first throttle, then grows by 1/limit per success (one per round trip); a throttle
 * (429, 503, 529) halves it, at most once per round trip: a throttle on a request that started before
 * the last decrease says nothing about the new limit.
 */

export interface LimiterOptions {
  /** Starting limit (default 8). */
  initial?: number;
  /** Ceiling (default 256). */
  max?: number;
  /** Floor (default 1). */
  min?: number;
  /** Multiplicative decrease (default 0.5). */
  decrease?: number;
}

export interface LimiterSnapshot {
  limit: number;
  inFlight: number;
  queued: number;
  throttles: number;
  decreases: number;
  successes: number;
}

/**
 * A budget one endpoint's limiters share across processes (every worker of a deployment): requests
 * and tokens per window, and a common back-off after a throttle. `LimiterPool` consults it around
 * each request; the Redis one is `createRedisRateLimit` (`src/queue`). Its failures never fail a call.
 */
export interface SharedRateLimit {
  /** Resolves when the endpoint's shared budget admits one more request now (counted). */
  admit(key: string, signal?: AbortSignal): Promise<void>;
  /** Counts a finished request's tokens against the shared token budget. */
  spend(key: string, tokens: number): Promise<void>;
  /** The provider throttled: every process holds back this endpoint for a while. */
  throttled(key: string): Promise<void>;
}

/** Returned by `acquire`: report how the request went, exactly once. */
export interface LimiterPermit {
  /** `tokens`: what the request used, counted against a shared token budget. */
  success(usage?: { tokens?: number }): void;
  /** The provider said slow down (429/503/529). */
  throttled(): void;
  /** Any other ending (error, abort): frees the slot without a signal. */
  release(): void;
}

export class AimdLimiter {
  private limitValue: number;
  private readonly max: number;
  private readonly min: number;
  private readonly decrease: number;
  private inFlight = 0;
  private readonly waiters: Array<() => void> = [];
  private started = 0;
  /** Sequence number of the first request started after the last decrease. */
  private decreasedAt = 0;
  private slowStart = true;
  private stats = { throttles: 0, decreases: 0, successes: 0 };

  private readonly shared: { key: string; limit: SharedRateLimit } | undefined;

  constructor(options: LimiterOptions = {}, shared?: { key: string; limit: SharedRateLimit }) {
    this.shared = shared;
    this.min = Math.max(1, options.min ?? 1);
    this.max = Math.max(this.min, options.max ?? 256);
    this.limitValue = Math.min(this.max, Math.max(this.min, options.initial ?? 8));
    this.decrease = options.decrease ?? 0.5;
  }

  get limit(): number {
    return Math.floor(this.limitValue);
  }

  snapshot(): LimiterSnapshot {
    return {
      limit: this.limit,
      inFlight: this.inFlight,
      queued: this.waiters.length,
      ...this.stats,
    };
  }

  /** Waits for a slot (in arrival order). Rejects with the signal's reason when aborted while waiting. */
  async acquire(signal?: AbortSignal): Promise<LimiterPermit> {
    if (signal?.aborted) throw signal.reason;
    if (this.inFlight < this.limit && this.waiters.length === 0) this.inFlight++;
    else {
      // `wake` counts the slot before granting it, so a granted waiter already holds it
      await new Promise<void>((resolve, reject) => {
        const grant = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = this.waiters.indexOf(grant);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(signal?.reason);
        };
        this.waiters.push(grant);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    }
    if (this.shared) {
      try {
        await this.shared.limit.admit(this.shared.key, signal);
      } catch (err) {
        if (signal?.aborted) {
          this.inFlight--;
          this.wake();
          throw signal.reason;
        }
        // an unreachable shared budget degrades to this process's own limit (the slot is kept)
        void err;
      }
    }
    const seq = ++this.started;
    // only a limit that is actually used may grow (else an idle period inflates it into a storm):
    // at least half of it in flight when this request started or ended
    const busyAtStart = this.inFlight >= this.limitValue / 2;
    let done = false;
    const finish = (outcome: "success" | "throttled" | "none") => {
      if (done) return;
      done = true;
      const busy = busyAtStart || this.inFlight >= this.limitValue / 2;
      this.inFlight--;
      if (outcome === "success") this.onSuccess(busy);
      else if (outcome === "throttled") this.onThrottle(seq);
      this.wake();
    };
    const shared = this.shared;
    return {
      success: (usage) => {
        if (shared && usage?.tokens) shared.limit.spend(shared.key, usage.tokens).catch(() => undefined);
        finish("success");
      },
      throttled: () => {
        if (shared) shared.limit.throttled(shared.key).catch(() => undefined);
        finish("throttled");
      },
      release: () => finish("none"),
    };
  }

  private onSuccess(busy: boolean): void {
    this.stats.successes++;
    if (!busy) return;
    this.limitValue = Math.min(this.max, this.limitValue + (this.slowStart ? 1 : 1 / this.limitValue));
  }

  private onThrottle(seq: number): void {
    this.stats.throttles++;
    this.slowStart = false;
    if (seq < this.decreasedAt) return;
    this.stats.decreases++;
    this.limitValue = Math.max(this.min, this.limitValue * this.decrease);
    this.decreasedAt = this.started + 1;
  }

  private wake(): void {
    while (this.waiters.length > 0 && this.inFlight < this.limit) {
      this.inFlight++;
      this.waiters.shift()!();
    }
  }
}

/**
 * One limiter per provider endpoint, shared by every agent of a gym that calls it (so two agents on
 * one endpoint back off together). Owned by the gym; nothing process-wide.
 */
export class LimiterPool {
  readonly #limiters = new Map<string, AimdLimiter>();
  readonly #shared: SharedRateLimit | undefined;

  /** With `shared`, every endpoint's limiter also draws on that cross-process budget. */
  constructor(opts: { shared?: SharedRateLimit } = {}) {
    this.#shared = opts.shared;
  }

  /** The endpoint's limiter (created with `options` on first use). */
  get(key: string, options: LimiterOptions = {}): AimdLimiter {
    let limiter = this.#limiters.get(key);
    if (!limiter) {
      limiter = new AimdLimiter(options, this.#shared && { key, limit: this.#shared });
      this.#limiters.set(key, limiter);
    }
    return limiter;
  }
}
