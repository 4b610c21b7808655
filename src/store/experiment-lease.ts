import { ProvingError } from "../core/errors.ts";
import { isDeadLocalHolder, leaseHolderId } from "./lease-holder.ts";
import type { ExperimentLease } from "./leases.ts";
import type { Store } from "./store.ts";

/** How long an experiment lease lasts without a heartbeat (default; heartbeats come 3 times as often). */
export const DEFAULT_LEASE_MS = 30_000;

export interface HoldLeaseOptions {
  /** Take the lease even though another process's is live (that process died). */
  force?: boolean;
  /** Lease length without a heartbeat (default DEFAULT_LEASE_MS). */
  ttlMs?: number;
  /** This process's holder id (default host:pid:nonce). */
  holder?: string;
  now?: () => number;
  /** Called once if another process takes the lease over (`--force`) while this one holds it. */
  onLost?: (by: ExperimentLease | undefined) => void;
}

/** A held lease: renewed in the background until `release()`. */
export interface HeldLease {
  readonly holder: string;
  /** Who held it before, when it was taken from a dead (expired) or forced holder. */
  readonly previous: ExperimentLease | undefined;
  /** True once another process took the lease over. */
  readonly lost: boolean;
  release(): Promise<void>;
}

export { leaseHolderId } from "./lease-holder.ts";

export function experimentLive(experimentId: string, holder: ExperimentLease, nowMs: number): ProvingError {
  const left = Math.max(0, Math.ceil((holder.expiresAt - nowMs) / 1000));
  return new ProvingError(
    "experiment_live",
    `experiment ${experimentId} is live: ${holder.holder} holds it (since ${holder.acquiredAt}; its lease expires in ${left} s without a heartbeat). Wait for it to finish, or, if that process is dead, pass --force to take it over`,
    { details: { experimentId, holder: holder.holder, expiresAt: holder.expiresAt } },
  );
}

/**
 * Takes an experiment's lease in the store (so no second process runs, resumes or follows it at the
 * same time) and keeps it alive with a heartbeat every third of its length. Throws `experiment_live`
 * when another process's lease is live and `force` is not set. A lease whose holder stops renewing
 * (killed) expires after `ttlMs`; then anyone may take it without `--force`. A holder that is a dead
 * process on this host (see `isDeadLocalHolder`) is taken over at once, without `--force`.
 */
export async function holdExperimentLease(
  store: Store,
  experimentId: string,
  opts: HoldLeaseOptions = {},
): Promise<HeldLease> {
  const now = opts.now ?? Date.now;
  const ttlMs = opts.ttlMs ?? DEFAULT_LEASE_MS;
  const holder = opts.holder ?? leaseHolderId();
  const nowMs = now();
  const request = { holder, ttlMs, nowMs, ...(opts.force ? { force: true } : {}) };
  let got = await store.acquireLease(experimentId, request);
  // the holder is a dead process on this host: take its lease over now (only if it still holds it)
  if (!got.acquired && isDeadLocalHolder(got.holder.holder))
    got = await store.acquireLease(experimentId, { ...request, replaces: got.holder.holder });
  if (!got.acquired) throw experimentLive(experimentId, got.holder, nowMs);
  let lost = false;
  let released = false;
  let beat: Promise<void> = Promise.resolve();
  const heartbeat = async () => {
    try {
      const ok = await store.renewLease(experimentId, holder, now() + ttlMs);
      if (!ok && !released && !lost) {
        lost = true;
        clearInterval(timer);
        opts.onLost?.(await store.getLease(experimentId).catch(() => undefined));
      }
    } catch {
      // a store hiccup: the next beat tries again (the lease outlives a couple of missed beats)
    }
  };
  const timer = setInterval(
    () => {
      beat = beat.then(heartbeat);
    },
    Math.max(50, Math.floor(ttlMs / 3)),
  );
  timer.unref?.();
  return {
    holder,
    previous: got.previous,
    get lost() {
      return lost;
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await beat;
      if (!lost) await store.releaseLease(experimentId, holder).catch(() => undefined);
    },
  };
}
