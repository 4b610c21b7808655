import cliProgress from "cli-progress";
import type { Progress } from "../runner/progress.ts";

export interface ProgressReporter {
  update(p: Progress): void;
  stop(): void;
}

const pct = (a: number, b: number) => (b > 0 ? `${((100 * a) / b).toFixed(1)}%` : "-");

function eta(started: number, done: number, startDone: number, planned: number): string {
  const rate = (done - startDone) / Math.max(1e-9, (Date.now() - started) / 1000);
  if (rate <= 0 || done >= planned) return "0s";
  const s = Math.round((planned - done) / rate);
  return s >= 90 ? `${Math.round(s / 60)}m` : `${s}s`;
}

/**
 * Live progress on stderr: a bar on a TTY; on a log (CI), a plain line every few seconds and at
 * the end. Shows trials done/planned, pass rate so far, violations, errors and ETA.
 */
export function progressReporter(opts: {
  enabled: boolean;
  tty?: boolean;
  /** Where progress goes (default stderr). */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Plain-text mode: at most one line per this many ms (default 2000), plus one at the end. */
  intervalMs?: number;
}): ProgressReporter {
  if (!opts.enabled) return { update() {}, stop() {} };
  const stream = opts.stream ?? process.stderr;
  const tty = opts.tty ?? Boolean(stream.isTTY);
  const intervalMs = opts.intervalMs ?? 2000;
  const started = Date.now();
  let startDone = -1;
  if (tty) {
    const bar = new cliProgress.SingleBar(
      {
        stream: stream as NodeJS.WritableStream,
        format:
          "{bar} {value}/{total} trials | pass {rate} | violations {violated} | errors {errors} | ETA {eta_s}",
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    let startedBar = false;
    return {
      update(p) {
        if (startDone < 0) startDone = p.done - 1;
        const payload = {
          rate: pct(p.passed, p.done - Math.max(0, startDone)),
          violated: p.violated,
          errors: p.errors,
          eta_s: eta(started, p.done, startDone, p.planned),
        };
        if (!startedBar) {
          bar.start(p.planned, p.done, payload);
          startedBar = true;
        } else bar.update(p.done, payload);
      },
      stop() {
        if (startedBar) bar.stop();
      },
    };
  }
  let last = 0;
  let latest: Progress | undefined;
  // runExperiment passes one object it keeps updating: remember the count, not the object
  let printedDone = -1;
  const line = (p: Progress) => {
    printedDone = p.done;
    stream.write(
      `[proving] ${p.done}/${p.planned} trials, pass ${pct(p.passed, p.done - Math.max(0, startDone))}, violations ${p.violated}, errors ${p.errors}, ETA ${eta(started, p.done, startDone, p.planned)}\n`,
    );
  };
  return {
    update(p) {
      if (startDone < 0) startDone = p.done - 1;
      latest = p;
      if (Date.now() - last >= intervalMs) {
        last = Date.now();
        line(p);
      }
    },
    stop() {
      // the final state, unless the last line already showed it
      if (latest && latest.done !== printedDone) line(latest);
    },
  };
}
