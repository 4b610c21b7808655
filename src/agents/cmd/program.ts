import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import type { EpisodeInfo } from "../../core/contracts.ts";
import { agentEnvironment, episodeEnv } from "./child-env.ts";
import type { EpisodeTraces } from "./episode-traces.ts";
import { absolutizeCommand, PrivateDir } from "./private-dir.ts";
import { killEpisodeProcesses, type SandboxMode, sandboxCommand } from "./sandbox.ts";

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
}

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
  return {
    child,
    dir,
    sandboxed: run.sandboxed,
    episodeId: episode.episodeId,
    ...(options.traces ? { traces: options.traces } : {}),
  };
}

/**
 * Ends whatever is left of the program (its group, its sandbox, what escaped the group) and removes
 * its directory. What escaped is looked for more than once: a process being forked (`setsid` forks
 * before it execs) can be missed by one look.
 */
export async function cleanUpProgram(program: Program): Promise<void> {
  const pid = program.child.pid;
  if (pid !== undefined && process.platform !== "win32") {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (let pass = 0; pass < 6; pass++) {
    const killed = killEpisodeProcesses(program.episodeId, program.dir.path);
    if (killed === 0 && pass >= 2) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  program.dir.remove();
  program.traces?.ended({ episodeId: program.episodeId, dir: program.dir.path });
}

/** The `cmd:`/`cmd-jsonl:` options every resolver reads from the gym's environment. */
export interface ProgramSettings {
  passEnv: string[];
  sandbox: SandboxMode;
  readOnly: string[];
}

/**
 * `PROVING_AGENT_ENV` (comma-separated names to pass: the CLI's `--agent-env`), `PROVING_AGENT_SANDBOX`
 * (`auto`, the default; `require`; `off`) and `PROVING_AGENT_READ` (paths the sandboxed program may
 * read, separated like PATH), from the gym's environment.
 */
export function programSettings(env: Readonly<Record<string, string | undefined>>): ProgramSettings {
  const list = (v: string | undefined, sep: string | RegExp) =>
    (v ?? "")
      .split(sep)
      .map((s) => s.trim())
      .filter(Boolean);
  const mode = env.PROVING_AGENT_SANDBOX ?? "auto";
  return {
    passEnv: list(env.PROVING_AGENT_ENV, ","),
    sandbox: mode === "require" || mode === "off" ? mode : "auto",
    readOnly: list(env.PROVING_AGENT_READ, ":"),
  };
}
