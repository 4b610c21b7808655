/**
 * The one isolated-vm host of the project; both sandboxes stand on it (code-repair's workspace sandbox,
 * `isolate-sandbox.ts`, and the generated-rule sandbox of `src/rules`). It makes isolates with a heap
 * limit, runs code in a fresh context of one with a wall-clock limit (a run that the limit stopped
 * while the process barely used the CPU, i.e. it waited for a core, may run again in a fresh context),
 * and tells which limit an error broke.
 *
 * isolated-vm is a native module, loaded the first time an isolate is made (never at import), and
 * wants node started with `--no-node-snapshot` (the bin, `npm test` and `npm start` pass it).
 */
import { createRequire } from "node:module";
import { ProvingError } from "../core/errors.ts";
import { missingOptionalDependency, optionalDependencyMissing } from "../core/optional-dependency.ts";

type Ivm = typeof import("isolated-vm");
export type Isolate = import("isolated-vm").Isolate;
export type IsolateContext = import("isolated-vm").Context;
export type IsolateScript = import("isolated-vm").Script;

/** The isolated-vm the sandboxes are built and tested against (their ids name it). */
export const ISOLATED_VM = "isolated-vm@5.0.4";

/** isolated-vm's smallest heap limit, in MiB. */
const MIN_MEMORY_MB = 8;

export interface IsolateHostOptions {
  /** Wall-clock limit of one run of a script, in ms. */
  timeoutMs: number;
  /** Heap limit of an isolate, in MiB (raised to isolated-vm's minimum, 8). */
  memoryMb: number;
  /** Who needs isolated-vm, for the error when it does not load (e.g. `generated rules need`). */
  needs: string;
  /**
   * Tries of a run that the wall-clock limit stopped while the process used under half of it in CPU
   * time (default 1: no second try). The code must be pure for a second try to mean the same.
   */
  stallTries?: number;
  /** The process's CPU time in ms, read before and after a run (default `process.cpuUsage`). */
  cpuMs?: () => number;
}

/** The limit an error of a run broke. */
export type BrokenLimit = "memory_limit" | "timeout";

export interface IsolateHost {
  readonly timeoutMs: number;
  readonly memoryMb: number;
  /** A new isolate with the heap limit; isolated-vm is loaded on the first (`sandbox_unavailable` if it cannot be). */
  newIsolate(): Isolate;
  /**
   * Runs `body` in a fresh context of `isolate` (released afterwards); `body` runs its scripts with
   * `limit`. What `body` throws is thrown, unless the run stalled and tries are left: then `body` runs
   * again in another fresh context.
   */
  runFresh<T>(isolate: Isolate, body: (context: IsolateContext, limit: { timeout: number }) => T): T;
  /** Which limit `err`, thrown by a run in `isolate`, broke (the heap's disposes the isolate); none for the code's own errors. */
  brokenLimit(err: unknown, isolate: Isolate): BrokenLimit | undefined;
}

/** The process's CPU time so far, in ms (user + system, every thread: a run blocks the caller's). */
const processCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const messageOf = (err: unknown) => String((err as Error)?.message ?? err);

/** An isolated-vm host with the given limits. */
export function isolateHost(opts: IsolateHostOptions): IsolateHost {
  const { timeoutMs, needs } = opts;
  const memoryMb = Math.max(MIN_MEMORY_MB, opts.memoryMb);
  const stallTries = opts.stallTries ?? 1;
  const cpuMs = opts.cpuMs ?? processCpuMs;
  let ivm: Ivm | undefined;

  const brokenLimit = (err: unknown, isolate: Isolate): BrokenLimit | undefined => {
    const message = messageOf(err);
    if (isolate.isDisposed || /memory limit/i.test(message)) return "memory_limit";
    if (/timed out/i.test(message)) return "timeout";
    return undefined;
  };

  /**
   * Whether a run stopped by the wall-clock limit was stopped by the machine rather than by the code:
   * the process used less than half the limit in CPU time meanwhile, so the run mostly waited for a
   * core. Code that spins uses the CPU the whole time.
   */
  const stalled = (err: unknown, cpuUsedMs: number, isolate: Isolate) =>
    !isolate.isDisposed && /timed out/i.test(messageOf(err)) && cpuUsedMs < timeoutMs / 2;

  return {
    timeoutMs,
    memoryMb,
    newIsolate() {
      ivm ??= loadIsolatedVm(needs);
      return new ivm.Isolate({ memoryLimit: memoryMb });
    },
    runFresh(isolate, body) {
      const limit = { timeout: timeoutMs };
      let context = isolate.createContextSync();
      try {
        for (let attempt = 1; ; attempt++) {
          const cpu = cpuMs();
          try {
            return body(context, limit);
          } catch (err) {
            if (!stalled(err, cpuMs() - cpu, isolate) || attempt >= stallTries) throw err;
            context.release();
            context = isolate.createContextSync();
          }
        }
      } finally {
        if (!isolate.isDisposed) context.release();
      }
    },
    brokenLimit,
  };
}

/** Frees an isolate unless a broken heap limit freed it already. */
export function disposeIsolate(isolate: Isolate): void {
  if (!isolate.isDisposed) isolate.dispose();
}

function loadIsolatedVm(needs: string): Ivm {
  try {
    return createRequire(import.meta.url)("isolated-vm") as Ivm;
  } catch (err) {
    // not installed (`npm install --omit=optional`): say which package; installed but not loadable: unavailable
    if (missingOptionalDependency(err) === "isolated-vm") throw optionalDependencyMissing("isolated-vm", err);
    throw new ProvingError(
      "sandbox_unavailable",
      `${needs} the native module ${ISOLATED_VM} (npm install builds it): ${(err as Error).message}`,
    );
  }
}
