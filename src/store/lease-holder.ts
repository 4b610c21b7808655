import { randomUUID } from "node:crypto";
import os from "node:os";

/** This process's lease holder id: `host:pid:nonce` (the nonce tells two holders in one process apart). */
export function leaseHolderId(): string {
  return `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/**
 * True when `holder` (a `host:pid:nonce` id) names a process on this host (same hostname) that no
 * longer exists: `process.kill(pid, 0)` fails with ESRCH. Anything else is not known dead: another
 * host, an id of another shape, a pid that exists (EPERM: someone else's process) or this process.
 *
 * The nonce cannot be checked from outside the holder, so a dead holder whose pid was reused by a
 * new process counts as live: its lease is then refused until it expires, as before (the safe side).
 * Two machines (or containers with their own pid namespaces) that share a store AND a hostname would
 * mistake each other's live holders for dead ones: give them distinct hostnames.
 */
export function isDeadLocalHolder(holder: string): boolean {
  const parts = holder.split(":");
  if (parts.length < 3) return false;
  const pid = Number(parts[parts.length - 2]);
  const host = parts.slice(0, -2).join(":");
  if (host !== os.hostname() || !Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}
