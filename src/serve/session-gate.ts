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
 * What is held of something limited: at most `limit()` at once, the rest waiting their turn, first
 * come first served.
 */
class Slots {
  held = 0;
  readonly #queue: Array<() => void> = [];

  constructor(private readonly limit: () => number) {}

  /**
   * Takes one: at once under the limit, else in turn, for as long as it takes or, with `until`, until
   * its time (then its `full()` is thrown).
   */
  async take(until?: { at: number; full: () => Error }): Promise<void> {
    if (this.held < this.limit() && this.#queue.length === 0) {
      this.held++;
      return;
    }
    const left = until ? until.at - Date.now() : Number.POSITIVE_INFINITY;
    if (until && left <= 0) throw until.full();
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const turn = () => {
        clearTimeout(timer);
        this.held++;
        resolve();
      };
      this.#queue.push(turn);
      if (until)
        timer = setTimeout(() => {
          const i = this.#queue.indexOf(turn);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(until.full());
        }, left);
    });
  }

  give(): void {
    this.held--;
    if (this.held < this.limit()) this.#queue.shift()?.();
  }
}

/** `give` once, however often the returned function is called. */
function once(give: () => void): () => void {
  let given = false;
  return () => {
    if (given) return;
    given = true;
    give();
  };
}

/**
 * The sessions this process holds on one server. A server takes a limited number of sessions at once
 * (an OpenEnv server takes one unless told otherwise; `proving serve`, `--max-sessions`), and a run
 * plays several trials at once. Once the server refuses one (`CAPACITY_REACHED`), the gate knows its
 * limit (`max_sessions` of the refusal, else the sessions this process held when it came), and:
 * - as a run's `TrialAdmission` (`enter`), it starts at most that many trials at once, the others
 *   waiting their turn before their wall-clock budget starts;
 * - openings past the limit wait here, first come first served, for one of ours to close; a refusal
 *   while under the limit (another client holds slots) is retried after a pause that doubles up to a
 *   second. Past `waitMs` the opening fails with the server's refusal (or `remote_capacity_reached`
 *   when it never got to ask): an infrastructure failure, never the agent's.
 */
export class SessionGate {
  readonly #waitMs: number;
  #limit = Number.POSITIVE_INFINITY;
  readonly #sessions = new Slots(() => this.#limit);
  readonly #trials = new Slots(() => this.#limit);

  /**
   * `waitMs`: how long an opening may wait for a slot of a server at capacity. 0: a refusal is
   * thrown at once, as the server gave it (the limit is still learned).
   */
  constructor(waitMs = 0) {
    this.#waitMs = Math.max(0, waitMs);
  }

  /** Sessions this process holds now, and the most it lets itself hold (Infinity until a refusal). */
  get held(): number {
    return this.#sessions.held;
  }
  get limit(): number {
    return this.#limit;
  }

  /** A run's trial may start: at most `limit` at once (`TrialAdmission`); waits as long as it takes. */
  async enter(): Promise<() => void> {
    await this.#trials.take();
    return once(() => this.#trials.give());
  }

  /**
   * Opens a session with `attempt` (connect and reset; it closes what it opened when it throws) once
   * a slot is free. `release` gives the slot back when the session closes (more calls do nothing).
   */
  async open<T>(attempt: () => Promise<T>): Promise<{ value: T; release: () => void }> {
    const deadline = Date.now() + this.#waitMs;
    const sessions = this.#sessions;
    for (let tries = 0; ; tries++) {
      await sessions.take({ at: deadline, full: () => this.#full() });
      let value: T;
      try {
        value = await attempt();
      } catch (err) {
        sessions.give();
        if (!isRefusal(err)) throw err;
        const max = err.data.max_sessions;
        const limit = typeof max === "number" && max >= 1 ? max : Math.max(1, sessions.held);
        this.#limit = Math.min(this.#limit, limit);
        const left = deadline - Date.now();
        if (left <= 0) throw err;
        if (sessions.held >= this.#limit) continue; // wait in the queue for one of ours to close
        await pause(Math.min(left, FIRST_PAUSE_MS * 2 ** Math.min(tries, 6), MAX_PAUSE_MS));
        continue;
      }
      return { value, release: once(() => sessions.give()) };
    }
  }

  #full(): ServeClientError {
    return new ServeClientError(
      "remote_capacity_reached",
      `the server takes ${this.#limit} session(s) at once and this process holds them all${this.#waitMs > 0 ? ` (waited ${this.#waitMs} ms for one)` : ""}`,
      { wireCode: CAPACITY, data: { max_sessions: this.#limit, active_sessions: this.#sessions.held } },
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
 * `cancelled`: asked once the session is open (its owner may have been closed while it waited for a
 * slot, when its trial ran out of time); a session no one wants any more is closed at once, its slot
 * given back, and the opening fails (`remote_connection_closed`).
 */
export async function openGatedSession<T>(
  gate: SessionGate,
  url: string,
  opts: ClientOptions,
  firstRequest: (session: WsEpisodeClient) => Promise<T>,
  cancelled: () => boolean = () => false,
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
  if (cancelled()) {
    await value.session.close().catch(() => undefined);
    release();
    throw new ServeClientError(
      "remote_connection_closed",
      "the environment was closed while its session was opening",
    );
  }
  return { ...value, release };
}
