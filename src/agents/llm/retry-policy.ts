/** How a provider call is retried: plain data, so a config can name it without loading the provider SDK. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 8). */
  maxRetries: number;
  /** First backoff, ms (default 500); doubles per attempt, with jitter. */
  baseDelayMs: number;
  /** Backoff ceiling, ms (default 30 000). */
  maxDelayMs: number;
  /** A `retry-after` longer than this ends the call now instead of waiting (default 120 000). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 8,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
};
