import { Worker } from "node:worker_threads";
import type { GenerationOutcome, GenerationRequest } from "./generation-batch.ts";

const WORKER_URL = new URL("./generation-worker.mjs", import.meta.url);

export interface GenerationThreadOptions {
  /** The gym to rebuild in the thread (`gym.describe()`; its plugins must be importable from `cwd`). */
  description: object;
  cwd: string;
  /** A request not answered within this many ms is `failed` and the thread replaced (default 10,000). */
  timeoutMs?: number;
  /** Generation slower than this (ms) is `failed` even when it returns. */
  budgetMs?: number;
  /** How long starting a thread (loading the gym) may take (default 60,000 ms). */
  startTimeoutMs?: number;
}

type Pending = { resolve: (v: unknown) => void; timer: NodeJS.Timeout };

/** One worker thread; `ask` resolves with its reply, or `undefined` after the timeout (the thread is then stopped). */
class Thread {
  readonly worker: Worker;
  #pending: Pending | undefined;
  #dead = false;

  constructor(opts: GenerationThreadOptions) {
    this.worker = new Worker(WORKER_URL, {
      workerData: { description: opts.description, cwd: opts.cwd, budgetMs: opts.budgetMs },
      execArgv: [],
      stdout: true,
      stderr: true,
    });
    this.worker.on("message", (m) => this.#settle(m));
    this.worker.on("error", () => this.#settle(undefined, true));
    this.worker.on("exit", () => this.#settle(undefined, true));
  }

  #settle(value: unknown, dead = false): void {
    if (dead) this.#dead = true;
    const p = this.#pending;
    this.#pending = undefined;
    if (p) {
      clearTimeout(p.timer);
      p.resolve(value);
    }
  }

  /** Waits for the next message (the ready signal or a reply); undefined on timeout or death. */
  next(timeoutMs: number, send?: unknown): Promise<unknown> {
    if (this.#dead) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pending = undefined;
        void this.stop();
        resolve(undefined);
      }, timeoutMs);
      this.#pending = { resolve, timer };
      if (send !== undefined) this.worker.postMessage(send);
    });
  }

  get dead(): boolean {
    return this.#dead;
  }

  async stop(): Promise<void> {
    this.#dead = true;
    await this.worker.terminate();
  }
}

/**
 * Pre-generates and gates tasks in a worker thread, off the caller's thread: the caller's event loop
 * keeps running however slow a generator is. Requests go one at a time; one not answered within
 * `timeoutMs` (a hanging generator) is a `failed` outcome and the thread is replaced for the rest;
 * a thread that cannot start fails every remaining request. Never throws for a request's sake.
 */
export async function generateInThread(
  requests: readonly GenerationRequest[],
  opts: GenerationThreadOptions,
): Promise<GenerationOutcome[]> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const out: GenerationOutcome[] = [];
  let thread: Thread | undefined;
  try {
    for (const request of requests) {
      if (!thread || thread.dead) {
        thread = new Thread(opts);
        const ready = (await thread.next(opts.startTimeoutMs ?? 60_000)) as { ready?: boolean } | undefined;
        if (!ready?.ready) {
          await thread.stop();
          for (const r of requests.slice(out.length))
            out.push({
              request: r,
              verdict: { status: "failed", reason: "the generation thread did not start" },
              ms: 0,
            });
          return out;
        }
      }
      const reply = (await thread.next(timeoutMs, request)) as GenerationOutcome | undefined;
      out.push(
        reply ?? {
          request,
          verdict: { status: "failed", reason: `generation timed out after ${timeoutMs} ms` },
          ms: timeoutMs,
        },
      );
    }
    return out;
  } finally {
    await thread?.stop();
  }
}
