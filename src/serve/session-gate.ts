import { type ClientOptions, ServeClientError, WsEpisodeClient } from "./client.ts";

/** The wire code of a server refusing a session because it has no free slot. */
const CAPACITY = "CAPACITY_REACHED";

/** First pause after a refusal; it doubles up to `MAX_PAUSE_MS`. */
const FIRST_PAUSE_MS = 25;
const MAX_PAUSE_MS = 1000;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const isRefusal = (err: unknown): err is ServeClientError =>
  err instanceof ServeClientError && err.wireCode === CAPACITY;

/**
 * The sessions this process holds on one server. A server takes a limited number of sessions at once
 * (an OpenEnv server takes one unless told otherwise; `proving serve`, `--max-sessions`), and a run
 * plays several trials at once. Once the server refuses one (`CAPACITY_REACHED`), the gate knows its
 * limit (`max_sessions` of the refusal, else the sessions this process held when it came) and the
 * openings past it wait here, first come first served, for one of ours to close; a refusal while
 * under the limit (another client holds slots) is retried after a pause that doubles up to a second.
 * Past `waitMs` the opening fails with the server's refusal (or `remote_capacity_reached` when it
 * never got to ask): an infrastructure failure, never the agent's.
 */
export class SessionGate {
  readonly #waitMs: number;
  #limit = Number.POSITIVE_INFINITY;
  #held = 0;
  readonly #queue: Array<() => void> = [];

  /**
   * `waitMs`: how long an opening may wait for a slot of a server at capacity. 0: a refusal is
   * thrown at once, as the server gave it (the limit is still learned).
   */
  constructor(waitMs = 0) {
    this.#waitMs = Math.max(0, waitMs);
  }

  /** Sessions this process holds now, and the most it lets itself hold (Infinity until a refusal). */
  get held(): number {
    return this.#held;
  }
  get limit(): number {
    return this.#limit;
  }

  /**
   * Opens a session with `attempt` (connect and reset; it closes what it opened when it throws) once
   * a slot is free. `release` gives the slot back when the session closes (more calls do nothing).
   */
  async open<T>(attempt: () => Promise<T>): Promise<{ value: T; release: () => void }> {
    const deadline = Date.now() + this.#waitMs;
    for (let tries = 0; ; tries++) {
      await this.#take(deadline);
      let value: T;
      try {
        value = await attempt();
      } catch (err) {
        this.#give();
        if (!isRefusal(err)) throw err;
        const max = err.data.max_sessions;
        const limit = typeof max === "number" && max >= 1 ? max : Math.max(1, this.#held);
        this.#limit = Math.min(this.#limit, limit);
        const left = deadline - Date.now();
        if (left <= 0) throw err;
        if (this.#held >= this.#limit) continue; // wait in the queue for one of ours to close
        await pause(Math.min(left, FIRST_PAUSE_MS * 2 ** Math.min(tries, 6), MAX_PAUSE_MS));
        continue;
      }
      let released = false;
      return {
        value,
        release: () => {
          if (released) return;
          released = true;
          this.#give();
        },
      };
    }
  }

  /** Takes a slot: at once under the limit, else in turn when one is given back (until `deadline`). */
  async #take(deadline: number): Promise<void> {
    if (this.#held < this.#limit && this.#queue.length === 0) {
      this.#held++;
      return;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw this.#full();
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const turn = () => {
        clearTimeout(timer);
        this.#held++;
        resolve();
      };
      this.#queue.push(turn);
      timer = setTimeout(() => {
        const i = this.#queue.indexOf(turn);
        if (i >= 0) this.#queue.splice(i, 1);
        reject(this.#full());
      }, left);
    });
  }

  #give(): void {
    this.#held--;
    if (this.#held < this.#limit) this.#queue.shift()?.();
  }

  #full(): ServeClientError {
    return new ServeClientError(
      "remote_capacity_reached",
      `the server takes ${this.#limit} session(s) at once and this process holds them all${this.#waitMs > 0 ? ` (waited ${this.#waitMs} ms for one)` : ""}`,
      { wireCode: CAPACITY, data: { max_sessions: this.#limit, active_sessions: this.#held } },
    );
  }
}

/** A session opened through a gate: the client, what its first request answered, and its slot's release. */
export interface GatedSession<T> {
  session: WsEpisodeClient;
  first: T;
  release: () => void;
}

/**
 * Opens a WebSocket session on `url` when `gate` has a slot and sends its first request (a reset);
 * a failed first request closes the session before the gate decides whether to try again.
 */
export async function openGatedSession<T>(
  gate: SessionGate,
  url: string,
  opts: ClientOptions,
  firstRequest: (session: WsEpisodeClient) => Promise<T>,
): Promise<GatedSession<T>> {
  const { value, release } = await gate.open(async () => {
    const session = await WsEpisodeClient.connect(url, opts);
    try {
      return { session, first: await firstRequest(session) };
    } catch (err) {
      await session.close().catch(() => undefined);
      throw err;
    }
  });
  return { ...value, release };
}
