import type { TrialRecord } from "../core/contracts.ts";
import type { Store } from "./store.ts";

export interface TrialWriterOptions {
  /** Start a save once this many records are buffered (default 64). */
  batchSize?: number;
  /**
   * Start a save this many ms after the first record of a batch is buffered (default: off; the
   * caller flushes). The timer keeps the process alive until it fires, so nothing is stranded.
   */
  maxDelayMs?: number;
}

/**
 * Batches `Store.saveTrials` so a runner can hand over one record at a time without paying one
 * transaction each. Saves run one at a time, in order; a record added twice is saved once, the
 * later version winning. `flush()` resolves only after everything added before the call is
 * committed. A failed save keeps its records buffered (a later record for the same trial still
 * wins) and the next `flush()` retries them, rejecting if that fails too: nothing is dropped.
 */
export class TrialWriter {
  readonly #store: Pick<Store, "saveTrials">;
  readonly #batchSize: number;
  readonly #maxDelayMs: number | undefined;
  /** Buffered records by trial id, in insertion order. */
  #buffer = new Map<string, TrialRecord>();
  #seq = 0;
  /** Number of add() calls so far, and how many of the first ones are known committed. */
  #committed = 0;
  #inflight: Promise<void> | undefined;
  #inflightCount = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastError: unknown;

  constructor(store: Pick<Store, "saveTrials">, opts: TrialWriterOptions = {}) {
    this.#store = store;
    this.#batchSize = Math.max(1, Math.floor(opts.batchSize ?? 64));
    this.#maxDelayMs = opts.maxDelayMs;
  }

  /** Records not yet committed: buffered plus in flight. */
  get pending(): number {
    return this.#buffer.size + this.#inflightCount;
  }

  /** The error of the last failed background save, until a save succeeds. */
  get lastError(): unknown {
    return this.#lastError;
  }

  /** Buffers a record; starts a save in the background when the batch is full. */
  add(record: TrialRecord): void {
    const id = record.spec.id;
    this.#buffer.delete(id);
    this.#seq++;
    this.#buffer.set(id, record);
    this.#schedule();
  }

  /** Resolves once every record added before this call is committed; rejects if a save fails. */
  async flush(): Promise<void> {
    const target = this.#seq;
    while (this.#committed < target) {
      if (this.#inflight) {
        // A background save's failure is retried below, not reported twice.
        await this.#inflight.catch(() => undefined);
        continue;
      }
      await this.#save();
    }
  }

  /** Flushes and stops the timer. The store stays open. */
  async close(): Promise<void> {
    await this.flush();
    this.#clearTimer();
  }

  /** Starts a save when the batch is full, or arms the delay timer when one is configured. */
  #schedule(): void {
    if (this.#buffer.size >= this.#batchSize) this.#background();
    else if (this.#buffer.size > 0 && this.#maxDelayMs !== undefined && this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#background();
      }, this.#maxDelayMs);
    }
  }

  #background(): void {
    if (this.#inflight || this.#buffer.size === 0) return;
    this.#save().catch(() => undefined);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Saves the whole buffer. Only called when no save is in flight. */
  #save(): Promise<void> {
    this.#clearTimer();
    const batch = [...this.#buffer.values()];
    this.#buffer = new Map();
    // Saves run one at a time over the whole buffer: every add so far is in this batch or committed.
    const upTo = this.#seq;
    this.#inflightCount = batch.length;
    const run = Promise.resolve().then(() => this.#commit(batch, upTo));
    this.#inflight = run;
    return run;
  }

  async #commit(batch: TrialRecord[], upTo: number): Promise<void> {
    try {
      if (batch.length > 0) await this.#store.saveTrials(batch);
      this.#committed = Math.max(this.#committed, upTo);
      this.#lastError = undefined;
    } catch (err) {
      this.#lastError = err;
      // Put the batch back ahead of newer records, except where a newer version was added since.
      const requeued = new Map<string, TrialRecord>();
      for (const record of batch) {
        if (!this.#buffer.has(record.spec.id)) requeued.set(record.spec.id, record);
      }
      for (const [id, record] of this.#buffer) requeued.set(id, record);
      this.#buffer = requeued;
      throw err;
    } finally {
      this.#inflight = undefined;
      this.#inflightCount = 0;
    }
    this.#schedule();
  }
}
