const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };

export interface Interrupt {
  /** Aborted on the first signal: start no new trial, record the ones in flight, mark the run interrupted. */
  readonly signal: AbortSignal;
  /** The signal received, if any. */
  readonly received: NodeJS.Signals | undefined;
  /** The conventional exit code for the received signal (128 + its number), or undefined. */
  readonly exitCode: number | undefined;
  /** Removes the handlers. */
  dispose(): void;
}

/**
 * Turns SIGINT/SIGTERM into a graceful stop of a run: the first signal aborts (trials in flight finish
 * and are recorded, the experiment is marked `interrupted`); a second one exits at once. Either way no
 * trial is recorded twice, and `proving resume` runs what is missing.
 */
export function interruptOnSignals(
  signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM"],
  onFirst?: (signal: NodeJS.Signals) => void,
): Interrupt {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const code = (s: NodeJS.Signals) => 128 + (SIGNAL_NUMBERS[s] ?? 0);
  const handler = (s: NodeJS.Signals) => {
    if (received !== undefined) process.exit(code(s));
    received = s;
    onFirst?.(s);
    controller.abort();
  };
  for (const s of signals) process.on(s, handler);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    get exitCode() {
      return received === undefined ? undefined : code(received);
    },
    dispose() {
      for (const s of signals) process.off(s, handler);
    },
  };
}
