import { Worker } from "node:worker_threads";
import type {
  Agent,
  AgentAction,
  AgentSession,
  EpisodeInfo,
  Observation,
  TrialRecordSummary,
} from "../core/contracts.ts";
import { TrialEnd } from "../core/trial-end.ts";

/** Limits of the worker thread a module agent runs in. */
export interface ModuleAgentLimits {
  /** V8 old-generation heap of the agent's thread, in MiB (default 256). ArrayBuffers are not counted. */
  maxHeapMb?: number;
  /** How long `end()` may take before the thread is stopped anyway (default 1000 ms). */
  endGraceMs?: number;
}

const DEFAULT_HEAP_MB = 256;
const DEFAULT_END_GRACE_MS = 1000;
/** How long loading (importing) the module at resolve time may take. */
const LOAD_TIMEOUT_MS = 30_000;

type Reply =
  | { type: "loaded"; id: string }
  | { type: "bad"; problem: "no_default" | "not_agent" }
  | { type: "started" }
  | { type: "action"; json: string }
  | { type: "ended" }
  | { type: "error"; message: string };

/** The worker script: plain JavaScript beside this file, in the source and in `dist/` alike. */
const WORKER_URL = new URL("./module-worker.mjs", import.meta.url);

/**
 * One worker thread running one agent module: requests go in as structured-clone copies, replies
 * come back one per request, in order. A thread that dies (exit, uncaught exception, unhandled
 * rejection, out of memory) fails the request it was answering, and every later one, with the
 * reason — as an `agent_error` of the trial, never a crash of the runner.
 */
class AgentThread {
  readonly #worker: Worker;
  readonly #waiting: Array<{ resolve: (r: Reply) => void; reject: (e: unknown) => void }> = [];
  #dead: TrialEnd | undefined;
  #stopped = false;

  constructor(file: string, limits: ModuleAgentLimits) {
    this.#worker = new Worker(WORKER_URL, {
      workerData: { file },
      // not the runner's flags (a loader like tsx makes every thread slow to start); the worker
      // imports a .ts agent through tsx by itself
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb ?? DEFAULT_HEAP_MB },
      stdout: false,
      stderr: false,
    });
    this.#worker.unref();
    this.#worker.on("message", (reply: Reply) => {
      this.#waiting.shift()?.resolve(reply);
      if (this.#waiting.length === 0) this.#worker.unref();
    });
    this.#worker.on("error", (err: Error & { code?: string }) =>
      this.#die(
        err.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? `the agent ran out of memory (its heap limit is ${limits.maxHeapMb ?? DEFAULT_HEAP_MB} MiB)`
          : `the agent crashed: ${err.message ?? String(err)}`,
      ),
    );
    this.#worker.on("exit", (code) =>
      this.#die(this.#stopped ? "the agent's thread was stopped" : `the agent exited (code ${code})`),
    );
  }

  #die(reason: string): void {
    this.#dead ??= new TrialEnd("agent_error", reason, "agent");
    for (const w of this.#waiting.splice(0)) w.reject(this.#dead);
  }

  request(msg: Record<string, unknown>): Promise<Reply> {
    if (this.#dead) return Promise.reject(this.#dead);
    return new Promise<Reply>((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#worker.ref(); // a pending answer keeps the process alive; an idle thread does not
      try {
        this.#worker.postMessage(msg);
      } catch (err) {
        this.#waiting.pop();
        reject(new TrialEnd("agent_error", `cannot hand the agent its input: ${String(err)}`, "internal"));
      }
    });
  }

  /** Stops the thread (whatever it is doing: a synchronous loop included). */
  stop(): Promise<void> {
    this.#stopped = true;
    return this.#worker.terminate().then(() => undefined);
  }
}

const failed = (reply: Reply, during: string): TrialEnd =>
  new TrialEnd(
    "agent_error",
    reply.type === "error" ? `agent threw in ${during}: ${reply.message}` : `unexpected reply to ${during}`,
    "agent",
  );

/**
 * A session in its own thread. The module's `start(episode)` runs when the first observation
 * arrives (so the session exists, and the thread is stopped by `end()`, however the trial ends).
 */
class IsolatedSession implements AgentSession {
  readonly #thread: AgentThread;
  readonly #grace: number;
  #started: Promise<void> | undefined;
  #episode: EpisodeInfo | undefined;

  constructor(file: string, episode: EpisodeInfo, limits: ModuleAgentLimits) {
    this.#thread = new AgentThread(file, limits);
    this.#episode = episode;
    this.#grace = limits.endGraceMs ?? DEFAULT_END_GRACE_MS;
  }

  async #start(): Promise<void> {
    const loaded = await this.#thread.request({ type: "load" });
    if (loaded.type !== "loaded") throw failed(loaded, "loading the module");
    const started = await this.#thread.request({ type: "start", episode: this.#episode });
    this.#episode = undefined;
    if (started.type !== "started") throw failed(started, "start()");
  }

  async act(observation: Observation): Promise<AgentAction> {
    this.#started ??= this.#start();
    await this.#started;
    const reply = await this.#thread.request({ type: "act", observation });
    if (reply.type !== "action") throw failed(reply, "act()");
    return JSON.parse(reply.json) as AgentAction;
  }

  async end(summary: TrialRecordSummary): Promise<void> {
    try {
      if (this.#started) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          this.#started.then(() => this.#thread.request({ type: "end", summary })),
          new Promise((resolve) => {
            timer = setTimeout(resolve, this.#grace);
          }),
        ]).finally(() => clearTimeout(timer));
      }
    } catch {
      // the agent's end() failing changes nothing
    } finally {
      await this.#thread.stop();
    }
  }
}

/**
 * A module agent that runs out of the runner's reach: each episode gets a fresh worker thread
 * (its own heap, capped; its own globals) that imports the module and plays one session. It is
 * handed copies (the episode, each observation) and its actions come back as JSON text, so it can
 * neither change what the runner, the world or other trials see, nor what is recorded; `process.exit`,
 * an uncaught exception, an unhandled rejection or running out of memory end only its thread, and
 * its trial as `agent_error`; a call that never returns (a synchronous loop included) is stopped at
 * the trial's deadline (`timeout`).
 */
export function isolatedModuleAgent(id: string, file: string, limits: ModuleAgentLimits = {}): Agent {
  return { id, start: (episode) => new IsolatedSession(file, episode, limits) };
}

/** What loading an agent module in a thread of its own found. */
export type ModuleProbe =
  | { ok: true; id: string }
  | { ok: false; problem: "no_default" | "not_agent" | "load_failed"; message: string };

/**
 * Imports an agent module in a throwaway thread to check it is one (its default export has
 * `start`) and read its `id`, without running its code on the runner's thread.
 */
export async function probeAgentModule(file: string, limits: ModuleAgentLimits = {}): Promise<ModuleProbe> {
  const thread = new AgentThread(file, limits);
  let timer: NodeJS.Timeout | undefined;
  try {
    const reply = await Promise.race([
      thread.request({ type: "load" }),
      new Promise<Reply>((resolve) => {
        timer = setTimeout(
          () => resolve({ type: "error", message: `loading took more than ${LOAD_TIMEOUT_MS} ms` }),
          LOAD_TIMEOUT_MS,
        );
      }),
    ]);
    if (reply.type === "loaded") return { ok: true, id: reply.id };
    if (reply.type === "bad") return { ok: false, problem: reply.problem, message: reply.problem };
    return {
      ok: false,
      problem: "load_failed",
      message: reply.type === "error" ? reply.message : reply.type,
    };
  } catch (err) {
    return { ok: false, problem: "load_failed", message: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
    await thread.stop();
  }
}
