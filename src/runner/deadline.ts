import { performance } from "node:perf_hooks";
import { TrialEnd } from "../core/trial-end.ts";

/** setTimeout fires at once for delays past 2^31 − 1 ms; longer deadlines are simply not armed. */
const MAX_TIMER_MS = 2_147_483_647;

const noop = (): void => {};

interface Pending {
  reject: (err: TrialEnd) => void;
  what: string | (() => string);
}

/**
 * A trial's wall-clock deadline: one timer for the whole trial (armed on first use) that rejects every
 * call awaited when it fires. (A timer and a Promise.race per awaited call cost more than a step.)
 */
export class Deadline {
  readonly #at: number;
  #timer: NodeJS.Timeout | undefined;
  #fired = false;
  /** Calls awaited under the deadline (usually one at a time). */
  readonly #pending: Pending[] = [];

  /** `at`: the `performance.now()` time it passes (infinite: never). */
  constructor(at: number) {
    this.#at = at;
  }

  /** True once the timer fired (every call awaited then was rejected). */
  get fired(): boolean {
    return this.#fired;
  }

  /** Milliseconds until the deadline passes (≤ 0 once it has; Infinity: none). */
  left(): number {
    return this.#at - performance.now();
  }

  /** True once the deadline has passed (a call must not start). */
  passed(): boolean {
    return this.#at - performance.now() <= 0;
  }

  /**
   * `work`, rejected with a `timeout` if the deadline fires first. `what` names the call awaited (a
   * function when it changes while `work` runs: the step loop is guarded once, not once per call).
   */
  guard<T>(work: Promise<T>, what: string | (() => string)): Promise<T> {
    const left = this.#at - performance.now();
    if (left <= 0) {
      // the work started but its synchronous part outlasted the deadline (a first act() that spins):
      // from now on it is fired, and whatever the work ends with later is nobody's unhandled rejection
      this.#fired = true;
      work.then(noop, noop);
      return Promise.reject(
        new TrialEnd("timeout", `wall-clock timeout before ${typeof what === "string" ? what : what()}`),
      );
    }
    if (left > MAX_TIMER_MS) return work;
    this.#timer ??= setTimeout(() => this.#fire(), left);
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { reject, what };
      this.#pending.push(entry);
      work.then(
        (value) => {
          this.#settled(entry);
          resolve(value);
        },
        (err) => {
          this.#settled(entry);
          reject(err);
        },
      );
    });
  }

  #settled(entry: Pending): void {
    const pending = this.#pending;
    const i = pending.indexOf(entry);
    if (i < 0) return;
    const last = pending.pop()!;
    if (last !== entry) pending[i] = last;
  }

  #fire(): void {
    this.#timer = undefined;
    this.#fired = true;
    const pending = this.#pending.splice(0);
    for (const { reject, what } of pending)
      reject(
        new TrialEnd("timeout", `wall-clock timeout during ${typeof what === "string" ? what : what()}`),
      );
  }

  /** Stops the timer (the trial is over). */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
