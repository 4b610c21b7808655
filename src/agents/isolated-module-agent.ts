import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type {
  Agent,
  AgentAction,
  AgentSession,
  EpisodeInfo,
  Observation,
  TrialRecordSummary,
} from "../core/contracts.ts";
import { importOptional } from "../core/optional-dependency.ts";
import { TrialEnd } from "../core/trial-end.ts";
import { agentEnvironment } from "./cmd/child-env.ts";
import { PrivateDir } from "./cmd/private-dir.ts";
import { sandboxCommand } from "./cmd/sandbox.ts";
import { ownedTempDir } from "./owned-temp-dir.ts";

/** An agent module as its process loads it: the file to import and the files it may read. */
export interface PreparedModule {
  /** What the process imports: the module, or for TypeScript its bundle (esbuild, in a temp dir). */
  entry: string;
  /** The module and every local file its static imports reach (esbuild's import graph). */
  files: string[];
  /** Removes the bundle, if one was made. */
  dispose(): void;
}

const TYPESCRIPT = /\.[cm]?ts$/;

/**
 * Prepares an agent module for its process: its import graph (the process may read these files
 * and the module's directory, nothing else of the host's), and for a TypeScript module a bundle
 * (the agent's process cannot start esbuild itself: it may not spawn). A module esbuild cannot read
 * is handed over as it is (loading it then says what is wrong).
 */
export async function prepareModule(file: string): Promise<PreparedModule> {
  const { build } = await importOptional(() => import("esbuild"));
  const common = {
    entryPoints: [file],
    bundle: true,
    metafile: true,
    platform: "node" as const,
    format: "esm" as const,
    logLevel: "silent" as const,
    absWorkingDir: path.dirname(file),
  };
  const inputs = (meta: { inputs: Record<string, unknown> } | undefined) =>
    Object.keys(meta?.inputs ?? {})
      .filter((f) => !f.includes("node_modules/"))
      .map((f) => path.resolve(path.dirname(file), f));
  try {
    if (!TYPESCRIPT.test(file)) {
      const result = await build({ ...common, write: false, packages: "external" });
      return { entry: file, files: inputs(result.metafile), dispose() {} };
    }
    const dir = ownedTempDir("proving-agent-build-");
    const entry = path.join(dir, "agent.mjs");
    const result = await build({
      ...common,
      outfile: entry,
      // a bundle in ESM still meets CommonJS packages that call require
      banner: {
        js: 'import { createRequire as __pgRequire } from "node:module"; const require = __pgRequire(import.meta.url);',
      },
    });
    return {
      entry,
      files: [...inputs(result.metafile), dir],
      dispose: () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  } catch {
    return { entry: file, files: [file], dispose() {} };
  }
}

/** Limits of the process a module agent runs in. */
export interface ModuleAgentLimits {
  /** V8 old-generation heap of the agent's process, in MiB (default 256). */
  maxHeapMb?: number;
  /**
   * Everything the process allocates (its data segment, `RLIMIT_DATA`: the heap, Buffers and
   * ArrayBuffers included), in MiB (default 1024). An allocation past it fails in the agent.
   */
  maxMemoryMb?: number;
  /** How long `end()` may take before the process is stopped anyway (default 1000 ms). */
  endGraceMs?: number;
}

/** Where the module agent's process runs: its environment and its sandbox. */
export interface ModuleAgentPlacement {
  /** The gym's environment: only the allowlist (`PATH`, locale…) and `passEnv` reach the agent. */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Variables passed by name (`--agent-env`). */
  passEnv?: readonly string[];
  /** Run under bubblewrap (this path): own PID, IPC, UTS and network namespaces; nothing of the host but the system and the agent's files. */
  bwrap?: string;
  /** More host paths the agent may read (`PROVING_AGENT_READ`). */
  readOnly?: readonly string[];
  /** The module's own files (what it imports, `moduleFiles`): readable besides its directory. */
  files?: readonly string[];
}

const DEFAULT_HEAP_MB = 256;
const DEFAULT_MEMORY_MB = 1024;
const DEFAULT_END_GRACE_MS = 1000;
/** How long loading (importing) the module at resolve time may take. */
const LOAD_TIMEOUT_MS = 30_000;
/** The last characters of the process's stderr kept to explain its death. */
const STDERR_TAIL = 4096;

type Reply =
  | { type: "loaded"; agent: string }
  | { type: "bad"; problem: "no_default" | "not_agent" }
  | { type: "started" }
  | { type: "action"; json: string }
  | { type: "ended" }
  | { type: "error"; message: string };

/** The process's script: plain JavaScript beside this file, in the source and in `dist/` alike. */
const SCRIPT = fileURLToPath(new URL("./module-process.mjs", import.meta.url));

/** `s` as one word of a POSIX shell command line. */
const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The node_modules a JavaScript module's bare imports load from: the nearest one above it. */
function packagesDir(file: string): string | undefined {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules");
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * One process running one agent module for a run: every session of the run plays in it, so what the
 * agent keeps in module state carries from one episode to the next (an agent that learns). Requests
 * go in as JSON copies, each answered once (by id). The process sees a scrubbed environment, reads
 * only its module's directory, the gym's packages and the system (Node's permission model: no
 * writes, no child processes, no workers; under bubblewrap also no network and no view of the
 * runner), and its allocations are capped (`RLIMIT_DATA`). A process that dies (exit, uncaught
 * exception, unhandled rejection, out of memory) fails the requests it was answering with the
 * reason — the trials' `agent_error`, never a crash of the runner — and the next session starts a
 * fresh one.
 */
class AgentProcess {
  readonly #child: ChildProcess;
  readonly #dir: PrivateDir;
  readonly #waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: unknown) => void }>();
  #nextId = 1;
  #dead: TrialEnd | undefined;
  #fatal: string | undefined;
  #stderr = "";
  #stopped = false;

  constructor(file: string, limits: ModuleAgentLimits, placement: ModuleAgentPlacement) {
    this.#dir = new PrivateDir();
    const heap = limits.maxHeapMb ?? DEFAULT_HEAP_MB;
    const memory = limits.maxMemoryMb ?? DEFAULT_MEMORY_MB;
    const packages = packagesDir(file);
    const readable = [
      ...new Set([
        this.#dir.path,
        path.dirname(file),
        ...(placement.files ?? []),
        SCRIPT,
        ...(packages ? [packages] : []),
        ...(placement.readOnly ?? []),
      ]),
    ];
    const node = [
      process.execPath,
      `--max-old-space-size=${heap}`,
      "--experimental-permission",
      ...readable.map((p) => `--allow-fs-read=${p}`),
      "--disable-warning=ExperimentalWarning",
      SCRIPT,
      file,
    ];
    // the data limit counts what the V8 heap limit does not (Buffers, ArrayBuffers)
    const command = `ulimit -d ${memory * 1024} && exec ${node.map(shellWord).join(" ")}`;
    const run = sandboxCommand(command, {
      bwrap: placement.bwrap,
      workDir: this.#dir.path,
      readOnly: readable,
      network: false,
    });
    const env = agentEnvironment(placement.baseEnv ?? {}, placement.passEnv ?? [], this.#dir.path, {});
    this.#child = spawn(run.file, run.args, {
      cwd: this.#dir.path,
      env,
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "json",
      detached: true, // its own process group: stopped as one
    });
    this.#child.stderr?.setEncoding("utf8");
    this.#child.stderr?.on("data", (d: string) => {
      this.#stderr = (this.#stderr + d).slice(-STDERR_TAIL);
    });
    this.#child.on("message", (reply: Reply & { id?: number; message?: string }) => {
      if (reply.type === ("fatal" as string)) {
        this.#fatal = reply.message;
        return;
      }
      if (reply.id === undefined) return;
      const waiter = this.#waiting.get(reply.id);
      this.#waiting.delete(reply.id);
      waiter?.resolve(reply);
      this.#idle();
    });
    this.#child.on("error", (err) => this.#die(`the agent's process failed: ${err.message}`));
    // "close", not "exit": by then every message the process sent (its fatal error) has been read
    this.#child.on("close", (code, signal) => {
      this.#dir.remove();
      if (this.#stopped) return this.#die("the agent's process was stopped");
      if (this.#fatal) return this.#die(`the agent crashed: ${this.#fatal}`);
      if (/heap out of memory|Allocation failed/i.test(this.#stderr))
        return this.#die(`the agent ran out of memory (its heap limit is ${heap} MiB)`);
      const said = this.#stderr.trim().split("\n").slice(-3).join(" ").slice(-300);
      this.#die(
        `the agent exited (${signal ? `signal ${signal}` : `code ${code}`})${said ? `: ${said}` : ""}`,
      );
    });
    this.#idle();
  }

  get dead(): boolean {
    return this.#dead !== undefined;
  }

  /** An idle process does not keep the runner alive. */
  #idle(): void {
    if (this.#waiting.size > 0) return;
    this.#child.unref();
    (this.#child.channel as { unref?: () => void } | undefined)?.unref?.();
  }

  #die(reason: string | TrialEnd): void {
    this.#dead ??= typeof reason === "string" ? new TrialEnd("agent_error", reason, "agent") : reason;
    for (const w of this.#waiting.values()) w.reject(this.#dead);
    this.#waiting.clear();
  }

  request(msg: Record<string, unknown>): Promise<Reply> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#child.ref(); // a pending answer keeps the runner alive
      (this.#child.channel as { ref?: () => void } | undefined)?.ref?.();
      try {
        this.#child.send({ id, ...msg }, (err) => {
          if (!err) return;
          // the channel closed: the process is exiting, and its exit says why (else this does)
          setTimeout(() => {
            if (!this.#waiting.delete(id)) return;
            reject(new TrialEnd("agent_error", `cannot hand the agent its input: ${String(err)}`, "agent"));
          }, 1000).unref();
        });
      } catch (err) {
        this.#waiting.delete(id);
        reject(new TrialEnd("agent_error", `cannot hand the agent its input: ${String(err)}`, "agent"));
      }
    });
  }

  /**
   * Stops the process and everything in its process group (whatever it is doing); `why` is what the
   * requests still waiting end with (default: an `agent_error`, the process was stopped).
   */
  stop(why?: TrialEnd): void {
    if (this.#stopped) return;
    this.#stopped = true;
    if (why) this.#die(why);
    const pid = this.#child.pid;
    try {
      if (pid !== undefined) process.kill(-pid, "SIGKILL");
    } catch {
      this.#child.kill("SIGKILL");
    }
    // now, not on "close": a CLI that stops its agents exits before that event comes
    this.#dir.remove();
  }
}

const failed = (reply: Reply, during: string): TrialEnd =>
  new TrialEnd(
    "agent_error",
    reply.type === "error" ? `agent threw in ${during}: ${reply.message}` : `unexpected reply to ${during}`,
    "agent",
  );

/** The agent's process for a run, loaded (started again when the last one died). */
class ModuleHost {
  #process: AgentProcess | undefined;
  #loaded: Promise<Reply> | undefined;
  #sessions = 0;

  constructor(
    readonly file: string,
    readonly limits: ModuleAgentLimits,
    readonly placement: ModuleAgentPlacement,
  ) {}

  /** The live process (a fresh one when there is none or it died) and its module's loading. */
  #live(): { proc: AgentProcess; loaded: Promise<Reply> } {
    if (!this.#process || this.#process.dead || !this.#loaded) {
      this.#process = new AgentProcess(this.file, this.limits, this.placement);
      this.#loaded = this.#process.request({ type: "load" });
    }
    return { proc: this.#process, loaded: this.#loaded };
  }

  /** The live process, its module loaded. */
  async ready(): Promise<AgentProcess> {
    const { proc, loaded } = this.#live();
    const reply = await loaded;
    if (reply.type !== "loaded") throw failed(reply, "loading the module");
    return proc;
  }

  /** What loading the module answered (within LOAD_TIMEOUT_MS). */
  async probe(): Promise<Reply> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.#live().loaded,
        new Promise<Reply>((resolve) => {
          timer = setTimeout(
            () => resolve({ type: "error", message: `loading took more than ${LOAD_TIMEOUT_MS} ms` }),
            LOAD_TIMEOUT_MS,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  nextSession(): number {
    return ++this.#sessions;
  }

  stop(why?: TrialEnd): void {
    this.#process?.stop(why);
    this.#process = undefined;
    this.#loaded = undefined;
  }
}

/**
 * A session played in the agent's process. The module's `start(episode)` runs when the first
 * observation arrives. An `end()` the process does not answer in time (it is stuck: a synchronous
 * loop) stops the process; the next session starts a fresh one.
 */
class IsolatedSession implements AgentSession {
  readonly #host: ModuleHost;
  readonly #session: number;
  readonly #grace: number;
  #process: AgentProcess | undefined;
  #started: Promise<void> | undefined;
  #episode: EpisodeInfo | undefined;

  constructor(host: ModuleHost, episode: EpisodeInfo) {
    this.#host = host;
    this.#session = host.nextSession();
    this.#episode = episode;
    this.#grace = host.limits.endGraceMs ?? DEFAULT_END_GRACE_MS;
  }

  async #start(): Promise<void> {
    this.#process = await this.#host.ready();
    const started = await this.#process.request({
      type: "start",
      session: this.#session,
      episode: this.#episode,
    });
    this.#episode = undefined;
    if (started.type !== "started") throw failed(started, "start()");
  }

  async act(observation: Observation): Promise<AgentAction> {
    this.#started ??= this.#start();
    await this.#started;
    const reply = await this.#process!.request({ type: "act", session: this.#session, observation });
    if (reply.type !== "action") throw failed(reply, "act()");
    return JSON.parse(reply.json) as AgentAction;
  }

  async end(summary: TrialRecordSummary): Promise<void> {
    if (!this.#started) return;
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      this.#started
        .then(() => this.#process!.request({ type: "end", session: this.#session, summary }))
        .then(
          () => true,
          () => true, // the agent's end() failing changes nothing
        ),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), this.#grace);
      }),
    ]).finally(() => clearTimeout(timer));
    // stuck (a synchronous loop, a blocking wait): its other episodes in flight could not be answered either
    if (!answered)
      this.#host.stop(
        new TrialEnd(
          "timeout",
          "wall-clock timeout during act(): the agent's process stopped answering (stuck in one of its episodes) and was stopped",
        ),
      );
  }
}

/** A module agent played in a process of its own; `stop()` ends the process (the run is over). */
export interface IsolatedModuleAgent extends Agent {
  stop(): void;
}

/**
 * A module agent that runs out of the runner's reach: one process per agent and run (see
 * `AgentProcess`), which imports the module once and plays every session. It is handed copies (the
 * episode, each observation) and its actions come back as JSON text, so it can neither change what
 * the runner, the world or other trials see, nor what is recorded; `process.exit`, an uncaught
 * exception, an unhandled rejection or running out of memory end only its process, and its trials in
 * flight as `agent_error`; a call that never returns (a synchronous loop included) is stopped at the
 * trial's deadline (`timeout`).
 */
export function isolatedModuleAgent(
  id: string,
  file: string,
  limits: ModuleAgentLimits = {},
  placement: ModuleAgentPlacement = {},
): IsolatedModuleAgent {
  const host = new ModuleHost(file, limits, placement);
  return { id, start: (episode) => new IsolatedSession(host, episode), stop: () => host.stop() };
}

/** What loading an agent module in a process of its own found. */
export type ModuleProbe =
  | { ok: true; id: string }
  | { ok: false; problem: "no_default" | "not_agent" | "load_failed"; message: string };

/**
 * Imports an agent module in a throwaway process (placed as the agent will be) to check it is one
 * (its default export has `start`) and read its `id`, without running its code in the runner.
 */
export async function probeAgentModule(
  file: string,
  limits: ModuleAgentLimits = {},
  placement: ModuleAgentPlacement = {},
): Promise<ModuleProbe> {
  const host = new ModuleHost(file, limits, placement);
  try {
    const reply = await host.probe();
    if (reply.type === "loaded") return { ok: true, id: reply.agent };
    if (reply.type === "bad") return { ok: false, problem: reply.problem, message: reply.problem };
    return {
      ok: false,
      problem: "load_failed",
      message: reply.type === "error" ? reply.message : reply.type,
    };
  } catch (err) {
    return { ok: false, problem: "load_failed", message: err instanceof Error ? err.message : String(err) };
  } finally {
    host.stop();
  }
}
