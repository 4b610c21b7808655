/**
 * Serializes write transactions in this process. better-sqlite3 is synchronous: when two
 * connections in one process share a file and one holds the write lock across an `await`, the
 * other's busy handler sleeps on the only thread, the holder never gets to commit, and both wait
 * out the busy timeout. Writers on the same file therefore take this lock first; other processes
 * are kept apart by SQLite's own lock and busy timeout.
 */
export class WriteLock {
  #tail: Promise<void> = Promise.resolve();

  /** Runs `fn` after every earlier `run` on this lock has settled. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

const shared = new Map<string, { lock: WriteLock; users: number }>();

/** The process-wide lock for a database file (by resolved path). Pair with `releaseWriteLock`. */
export function acquireWriteLock(key: string): WriteLock {
  let entry = shared.get(key);
  if (!entry) {
    entry = { lock: new WriteLock(), users: 0 };
    shared.set(key, entry);
  }
  entry.users++;
  return entry.lock;
}

export function releaseWriteLock(key: string): void {
  const entry = shared.get(key);
  if (!entry) return;
  entry.users--;
  if (entry.users <= 0) shared.delete(key);
}
