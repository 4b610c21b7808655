/**
 * Provider failures: what they mean, whether to retry, how long to wait (honouring `retry-after-ms`
 * and `retry-after`), and what a failure that outlived its retries becomes for the trial.
 */
import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  NoContentGeneratedError,
  TypeValidationError,
} from "ai";
import type { ErrorCode } from "../../core/error-catalogue.ts";
import { errorMessage, ProvingError } from "../../core/errors.ts";
import type { RetryPolicy } from "./retry-policy.ts";

export { DEFAULT_RETRY, type RetryPolicy } from "./retry-policy.ts";

export type FailureKind =
  | "rate_limited"
  | "overloaded"
  | "server_error"
  | "timeout"
  | "network"
  | "auth"
  | "not_found"
  | "bad_request"
  | "bad_response"
  | "aborted";

export interface ProviderFailure {
  kind: FailureKind;
  status?: number;
  retryable: boolean;
  /** The provider told the limiter to slow down. */
  throttle: boolean;
  retryAfterMs?: number;
  message: string;
}

/** Milliseconds the provider asked us to wait, from `retry-after-ms` or `retry-after` (seconds or a date). */
export function retryAfterMs(
  headers: Record<string, string> | undefined,
  nowMs = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const get = (name: string) => headers[name] ?? headers[name.toLowerCase()];
  const ms = get("retry-after-ms");
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms)) && Number(ms) >= 0)
    return Number(ms);
  const after = get("retry-after");
  if (after === undefined || after.trim() === "") return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function isAbort(err: unknown): err is Error {
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}

/** Classifies what a provider call threw; `timedOut` tells a per-call timeout from a session abort. */
export function classifyFailure(err: unknown, timedOut: boolean): ProviderFailure {
  const message = errorMessage(err);
  if (isAbort(err) || (err instanceof APICallError && isAbort(err.cause))) {
    return timedOut
      ? { kind: "timeout", retryable: true, throttle: false, message: "the provider did not answer in time" }
      : {
          kind: "aborted",
          retryable: false,
          throttle: false,
          message: "the call was aborted (the trial ended)",
        };
  }
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const after = retryAfterMs(err.responseHeaders);
    const base = { status, message, ...(after !== undefined ? { retryAfterMs: after } : {}) };
    if (status === undefined) return { kind: "network", retryable: true, throttle: false, ...base };
    // a 2xx the SDK could not read (empty, not JSON, an HTML page from a proxy) is the provider's fault
    if (status >= 200 && status < 300)
      return { kind: "bad_response", retryable: true, throttle: false, ...base };
    if (status === 429) return { kind: "rate_limited", retryable: true, throttle: true, ...base };
    if (status === 503 || status === 529)
      return { kind: "overloaded", retryable: true, throttle: true, ...base };
    if (status === 408 || status === 409 || status >= 500) {
      return { kind: "server_error", retryable: true, throttle: false, ...base };
    }
    if (status === 401 || status === 403) return { kind: "auth", retryable: false, throttle: false, ...base };
    if (status === 404) return { kind: "not_found", retryable: false, throttle: false, ...base };
    return { kind: "bad_request", retryable: false, throttle: false, ...base };
  }
  if (
    JSONParseError.isInstance(err) ||
    TypeValidationError.isInstance(err) ||
    InvalidResponseDataError.isInstance(err) ||
    EmptyResponseBodyError.isInstance(err) ||
    NoContentGeneratedError.isInstance(err)
  ) {
    return { kind: "bad_response", retryable: true, throttle: false, message };
  }
  if (LoadAPIKeyError.isInstance(err)) return { kind: "auth", retryable: false, throttle: false, message };
  return { kind: "network", retryable: true, throttle: false, message };
}

/** How long to wait before retry number `attempt` (0-based), or undefined to give up now. */
export function retryDelayMs(
  failure: ProviderFailure,
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  if (!failure.retryable || attempt >= policy.maxRetries) return undefined;
  if (failure.retryAfterMs !== undefined) {
    if (failure.retryAfterMs > policy.maxRetryAfterMs) return undefined;
    // honour it, plus up to 20% so the clients it throttled together do not come back together
    return failure.retryAfterMs * (1 + 0.2 * random());
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return ceiling / 2 + (ceiling / 2) * random();
}

/** The error code of each kind of provider failure (the catalogue gives each its fault). */
export const PROVIDER_ERROR_CODES = {
  rate_limited: "provider_rate_limited",
  overloaded: "provider_overloaded",
  server_error: "provider_server_error",
  timeout: "provider_timeout",
  network: "provider_network",
  auth: "provider_auth",
  not_found: "provider_not_found",
  bad_request: "provider_bad_request",
  bad_response: "provider_bad_response",
  aborted: "provider_aborted",
} as const satisfies Record<FailureKind, ErrorCode>;

/**
 * What a call that failed for good becomes: the provider's fault (`infrastructure`, so the trial is
 * `infra_error`, never `failed`) except a request the provider rejected as invalid (`agent`).
 */
export function finalError(failure: ProviderFailure, attempts: number, why?: string): ProvingError {
  const status = failure.status !== undefined ? ` (HTTP ${failure.status})` : "";
  const tries = attempts > 1 ? ` after ${attempts} attempts` : "";
  const message = `${failure.message}${status}${tries}${why ? `; ${why}` : ""}`;
  return new ProvingError(PROVIDER_ERROR_CODES[failure.kind], message, {
    details: { attempts, kind: failure.kind },
  });
}
