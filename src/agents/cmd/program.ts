import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import type { EpisodeInfo } from "../../core/contracts.ts";
import { agentEnvironment, episodeEnv } from "./child-env.ts";
import type { EpisodeTraces } from "./episode-traces.ts";
import { absolutizeCommand, PrivateDir } from "./private-dir.ts";
import { killEpisodeProcesses, sandboxCommand } from "./sandbox.ts";

/** How an external agent program is confined (shared by `cmd:` and `cmd-jsonl:`). */
export interface ProgramOptions {
  command: string;
  /** The run's directory: where words of the command that name files are looked up. */
  cwd: string;
  /** The environment the allowlist picks from: the gym's (default: this process's). */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Names of `baseEnv` variables to pass besides the default allowlist (`--agent-env NAME`). */
  passEnv?: readonly string[];
  /** Extra environment for the child, set as given. */
  env?: Record<string, string>;
  /** The bwrap binary to run it under, or undefined for none (see `chooseSandbox`). */
  bwrap?: string;
  /** Host paths the sandboxed program may read besides the files its command names. */
  readOnly?: readonly string[];
  /** The agent's ended episodes, checked for leftovers before each start (the agent-side clean start). */
  traces?: EpisodeTraces;
}

/** A started agent program: its process, its private directory, whether it is sandboxed. */
export interface Program {
  child: ChildProcess;
  dir: PrivateDir;
  sandboxed: boolean;
  episodeId: string;
  traces?: EpisodeTraces;
  /** The last `STDERR_TAIL` characters the program wrote to stderr (when stderr is piped). */
  stderrTail: () => string;
}

/** How much of a program's stderr is kept, for the message of its exit. */
const STDERR_TAIL = 2000;

/**
 * Starts `options.command` for one episode: in an empty private working directory (also its HOME
 * and TMPDIR), with the allowlisted environment plus `extra` and the episode's variables, in a
 * process group of its own, under bwrap when `options.bwrap` is set. First the start must be clean
 * (`options.traces`): otherwise it throws the trial's `contaminated` end.
 */
export function startProgram(
  options: ProgramOptions,
  episode: EpisodeInfo,
  extra: Record<string, string>,
  stdio: StdioOptions,
): Program {
  const dir = new PrivateDir();
  try {
    options.traces?.assertCleanStart(dir.path);
  } catch (err) {
    dir.remove();
    throw err;
  }
  const { command, files } = absolutizeCommand(options.command, options.cwd);
  const run = sandboxCommand(command, {
    bwrap: options.bwrap,
    workDir: dir.path,
    readOnly: [...files, ...(options.readOnly ?? [])],
  });
  const env = agentEnvironment(options.baseEnv ?? process.env, options.passEnv ?? [], dir.path, {
    ...options.env,
    ...extra,
    ...episodeEnv(episode),
  });
  let child: ChildProcess;
  try {
    child = spawn(run.file, run.args, {
      cwd: dir.path,
      detached: process.platform !== "win32",
      stdio,
      env,
    });
  } catch (err) {
    dir.remove();
    throw err;
  }
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  return {
    child,
    dir,
    sandboxed: run.sandboxed,
    episodeId: episode.episodeId,
    ...(options.traces ? { traces: options.traces } : {}),
    stderrTail: () => stderr,
  };
}

/** How a program's process ended: it could not be started (`error`), or it exited or was killed. */
export type ProgramExit = { error: Error } | { code: number | null; signal: NodeJS.Signals | null };

/**
 * Calls `onExit` (synchronously) on each of the child's `error` and `close` events; the promise
 * resolves at the first of them.
 */
export function watchExit(child: ChildProcess, onExit: (exit: ProgramExit) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    child.on("error", (error) => {
      onExit({ error });
      resolve();
    });
    child.on("close", (code, signal) => {
      onExit({ code, signal });
      resolve();
    });
  });
}

/** What the program did, for its error: could not start, or exited/was killed `when`, with its stderr's tail. */
export function describeExit(command: string, exit: ProgramExit, stderr: string, when: string): string {
  if ("error" in exit) return `could not start \`${command}\`: ${exit.error.message}`;
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const tail = stderr.trim();
  return `\`${command}\` ${how} ${when}${tail ? `; stderr: ${tail.slice(-500)}` : ""}`;
}

/** Resolves after `ms` without keeping the process alive. */
export const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/**
 * Signals the child's process group (the shell and what it started), by the child's pid; false if
 * there is none to signal (no pid, already gone; on Windows, the child itself once it has exited).
 */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  const pid = child.pid;
  if (pid === undefined) return false;
  try {
    if (process.platform !== "win32") process.kill(-pid, signal);
    else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    else return false;
    return true;
  } catch {
    return false; // already gone
  }
}

/**
 * Once the trial has ended: gives the program `graceMs` to exit (`exited` resolves when it has), then
 * SIGTERMs its group, SIGKILLs it 1 s later if it still runs, and waits up to 1 s more for the exit.
 */
export async function stopProgram(
  child: ChildProcess,
  exited: Promise<void>,
  graceMs: number,
): Promise<void> {
  const timedOut = await Promise.race([exited.then(() => false), wait(graceMs).then(() => true)]);
  if (!timedOut) return;
  signalGroup(child, "SIGTERM");
  const still = await Promise.race([exited.then(() => false), wait(1000).then(() => true)]);
  if (!still) return;
  signalGroup(child, "SIGKILL");
  await Promise.race([exited, wait(1000)]);
}

/**
 * Ends whatever is left of the program (its group, its sandbox, what escaped the group) and removes
 * its directory. What escaped is looked for more than once: a process being forked (`setsid` forks
 * before it execs) can be missed by one look.
 */
export async function cleanUpProgram(program: Program): Promise<void> {
  if (process.platform !== "win32") signalGroup(program.child, "SIGKILL");
  for (let pass = 0; pass < 6; pass++) {
    const killed = killEpisodeProcesses(program.episodeId, program.dir.path);
    if (killed === 0 && pass >= 2) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  program.dir.remove();
  program.traces?.ended({ episodeId: program.episodeId, dir: program.dir.path });
}
