import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A directory left by a process that died is removed once it is this old (a live run's is never). */
export const STALE_AFTER_MS = 10 * 60_000;

/** The prefixes already swept in this process (one sweep of each per process). */
const swept = new Set<string>();

/**
 * A new empty directory `<parent>/<prefix><pid>-XXXXXX`, owned by this process. The first call for a
 * prefix in a process also removes the directories of that prefix that a process killed before it
 * could clean up left behind (SIGKILL, a crash): the process named in the name is gone, the
 * directory is this user's and older than `STALE_AFTER_MS`. Anything else is left alone.
 */
export function ownedTempDir(prefix: string, parent: string = os.tmpdir()): string {
  const key = `${parent}\u0000${prefix}`;
  if (!swept.has(key)) {
    swept.add(key);
    sweepStale(prefix, parent, Date.now());
  }
  return fs.mkdtempSync(path.join(parent, `${prefix}${process.pid}-`));
}

/** Removes `<parent>/<prefix><pid>-*` left by dead processes (see `ownedTempDir`); returns how many. */
export function sweepStale(prefix: string, parent: string, now: number): number {
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return 0;
  }
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\d+)-[^/]+$`);
  const uid = process.getuid?.();
  let removed = 0;
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || alive(pid)) continue;
    const full = path.join(parent, name);
    try {
      const st = fs.lstatSync(full);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
      if (now - st.mtimeMs < STALE_AFTER_MS) continue;
      fs.rmSync(full, { recursive: true, force: true });
      removed++;
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process of another user has that pid, alive
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
