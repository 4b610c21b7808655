import { ProvingError } from "../core/errors.ts";

/** How long a write waits in all for another process's SQLite write lock (default of `openStore`). */
export const DEFAULT_BUSY_WAIT_MS = 60_000;

export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

export interface BusyRetryOptions {
  /** Total time to keep trying (from the first try). */
  waitMs: number;
  /** First pause between tries; doubles up to `maxDelayMs` (default 20 ms, 1000 ms). */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** What is being written, for the final error. */
  operation?: string;
}

/**
 * Runs `fn` (one whole write transaction, rolled back when it failed) again while it fails because
 * another process holds SQLite's write lock, pausing with exponential backoff in between (the event
 * loop stays free: SQLite's own busy handler waits only briefly per try). Past `waitMs` it fails with
 * `store_busy`, saying for how long the lock was held. Any other error passes through at once.
 */
export async function retryBusy<T>(fn: () => Promise<T>, opts: BusyRetryOptions): Promise<T> {
  const started = Date.now();
  let delay = opts.firstDelayMs ?? 20;
  const maxDelay = opts.maxDelayMs ?? 1000;
  for (let tries = 1; ; tries++) {
    try {
      return await fn();
    } catch (err) {
      if (!isBusyError(err)) throw err;
      const waited = Date.now() - started;
      if (waited >= opts.waitMs) {
        throw new ProvingError(
          "store_busy",
          `store: ${opts.operation ?? "write"} failed: another process has held the database's write lock for ${(waited / 1000).toFixed(1)} s (${tries} tries; the limit is ${(opts.waitMs / 1000).toFixed(1)} s, openStore's busyTimeoutMs). Find the process holding the file, or use a longer limit.`,
          { cause: err, details: { driverCode: (err as { code: string }).code, waitedMs: waited, tries } },
        );
      }
      const pause = Math.min(delay, Math.max(1, opts.waitMs - waited));
      await new Promise((r) => setTimeout(r, pause * (0.5 + Math.random() / 2)));
      delay = Math.min(maxDelay, delay * 2);
    }
  }
}
