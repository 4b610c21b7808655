/**
 * The sandbox an external agent program runs in (`cmd:` and `cmd-jsonl:`), with bubblewrap (`bwrap`,
 * Debian's `bubblewrap`). Threat model: the program is untrusted code playing for a good score; it
 * must not read what would let it cheat (the store with other trials' records, the checkout with the
 * worlds' generators and verifiers, other trials' files, the gym's secrets) nor outlive its trial.
 *
 * Under bwrap the program sees: the system's `/usr` (and `/bin`, `/lib`, `/lib64`, `/etc`) read-only,
 * a fresh `/proc`, `/dev` and `/tmp`, its private working directory (read-write), the files its
 * command names (read-only), and any `readOnly` paths given; nothing else of the host's filesystem. It
 * runs in its own user, PID, IPC and UTS namespaces (`--unshare-all`, network shared: an agent calls
 * the MCP server on 127.0.0.1 and its model's API), in a new session, and `--die-with-parent`: when
 * the trial stops it, the PID namespace ends and every process in it (`setsid`, double forks included)
 * with it.
 *
 * Without bwrap (`sandbox: "off"`, or `"auto"` where it is not installed or cannot create namespaces)
 * the program runs as the gym's user with the gym's filesystem rights: only the allowlisted
 * environment and the private working directory apply, and processes that escape its process group
 * are found by the episode id in their environment (`killEpisodeProcesses`). `"require"` refuses to
 * run an agent without the sandbox.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { configError } from "../../core/errors.ts";

export type SandboxMode = "auto" | "require" | "off";

/** How the program is started: the file and arguments to spawn. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  sandboxed: boolean;
}

const found = new Map<string, string | undefined>();

/** The path of a working `bwrap` on `PATH`, or undefined (checked once per PATH: it must create namespaces). */
export function findBwrap(pathVar: string | undefined): string | undefined {
  const key = pathVar ?? "";
  if (found.has(key)) return found.get(key);
  let result: string | undefined;
  for (const dir of key.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, "bwrap");
    if (!fs.existsSync(candidate)) continue;
    const probe = spawnSync(
      candidate,
      ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
      {
        stdio: "ignore",
        timeout: 5000,
      },
    );
    if (probe.status === 0) result = candidate;
    break;
  }
  found.set(key, result);
  return result;
}

/** Decides whether the program runs under bwrap: the bwrap path, or undefined to run it unsandboxed. */
export function chooseSandbox(
  mode: SandboxMode,
  pathVar: string | undefined,
  spec: string,
): string | undefined {
  if (mode === "off") return undefined;
  const bwrap = findBwrap(pathVar);
  if (!bwrap && mode === "require")
    throw configError(
      "bad_agent_spec",
      `${spec}: the agent sandbox is required but bubblewrap (bwrap) is not available here (apt-get install bubblewrap)`,
    );
  return bwrap;
}

const SYSTEM_DIRS = ["/usr", "/etc", "/opt"];
const SYSTEM_LINKS = ["/bin", "/lib", "/lib64", "/sbin"];

/** The spawn of `command` (a shell command line) in `workDir`, under bwrap when `bwrap` is given. */
export function sandboxCommand(
  command: string,
  opts: {
    bwrap: string | undefined;
    workDir: string;
    readOnly: readonly string[];
    /** Share the host's network (default true: a program reaches its MCP server and its model's API). */
    network?: boolean;
  },
): SandboxedCommand {
  if (!opts.bwrap) return { file: "/bin/sh", args: ["-c", command], sandboxed: false };
  const args = [
    "--die-with-parent",
    "--unshare-all",
    ...(opts.network === false ? [] : ["--share-net"]),
    "--new-session",
  ];
  for (const dir of SYSTEM_DIRS) args.push("--ro-bind-try", dir, dir);
  for (const link of SYSTEM_LINKS) {
    let target: string | undefined;
    try {
      target = fs.readlinkSync(link);
    } catch {
      target = undefined;
    }
    if (target !== undefined) args.push("--symlink", target, link);
    else args.push("--ro-bind-try", link, link);
  }
  // node (or whichever interpreter runs this gym) when it lives outside /usr
  const runtime = path.dirname(path.dirname(process.execPath));
  if (!SYSTEM_DIRS.some((d) => runtime === d || runtime.startsWith(`${d}/`)))
    args.push("--ro-bind-try", runtime, runtime);
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  for (const p of opts.readOnly) args.push("--ro-bind-try", p, p);
  args.push("--bind", opts.workDir, opts.workDir, "--chdir", opts.workDir);
  args.push("--", "/bin/sh", "-c", command);
  return { file: opts.bwrap, args, sandboxed: true };
}

/** An episode's marks on the processes it started: the id in their environment, its private directory. */
export interface EpisodeMark {
  episodeId: string;
  /** The episode's private working directory (a process whose cwd is in it is the episode's). */
  dir?: string;
}

/**
 * The processes of this user (other than this one) that belong to one of `marks`' episodes: whose
 * environment carries `PROVING_EPISODE_ID=<id>`, or whose working directory is in (or was: the
 * kernel shows a removed one as `<dir> (deleted)`) the episode's private directory. That finds what an
 * unsandboxed program started and detached from its process group (`setsid`, a double fork), even
 * with its environment cleared (`env -i`). Linux only (reads `/proc`); elsewhere, none.
 */
export function episodeProcesses(marks: readonly EpisodeMark[]): number[] {
  if (process.platform !== "linux" || marks.length === 0) return [];
  const needles = marks.map((m) => Buffer.from(`PROVING_EPISODE_ID=${m.episodeId}\0`));
  const dirs = marks.flatMap((m) => (m.dir ? [m.dir] : []));
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`);
      if (needles.some((n) => environ.includes(n))) {
        pids.push(pid);
        continue;
      }
      if (dirs.length === 0) continue;
      const cwd = fs.readlinkSync(`/proc/${entry}/cwd`).replace(/ \(deleted\)$/, "");
      if (dirs.some((d) => cwd === d || cwd.startsWith(`${d}/`))) pids.push(pid);
    } catch {
      // gone, or not ours
    }
  }
  return pids;
}

/** Sends SIGKILL to each pid; returns how many were signalled. */
export function killPids(pids: readonly number[]): number {
  let killed = 0;
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
      killed++;
    } catch {
      // gone
    }
  }
  return killed;
}

/** Kills what is left of one episode's processes (`episodeProcesses`); returns how many. */
export function killEpisodeProcesses(episodeId: string, dir?: string): number {
  return killPids(episodeProcesses([{ episodeId, ...(dir ? { dir } : {}) }]));
}
