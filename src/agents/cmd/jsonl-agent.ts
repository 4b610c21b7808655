/**
 * `cmd-jsonl:COMMAND`: an external program as an agent, one process per episode, speaking the stdio
 * JSON-lines protocol documented in jsonl-protocol.ts (observations in on stdin, one action out per
 * line on stdout). `cmd:COMMAND` (mcp-agent.ts) is the same idea over MCP.
 */
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type {
  Agent,
  AgentAction,
  AgentSession,
  EpisodeInfo,
  Observation,
  TrialRecordSummary,
} from "../../core/contracts.ts";
import { configError, ProvingError } from "../../core/errors.ts";
import type { ResolvedAgent } from "../resolve.ts";
import { EpisodeTraces } from "./episode-traces.ts";
import { CMD_JSONL_PROTOCOL, type GymLine } from "./jsonl-protocol.ts";
import {
  cleanUpProgram,
  type Program,
  type ProgramOptions,
  programSettings,
  startProgram,
} from "./program.ts";
import { chooseSandbox } from "./sandbox.ts";

export interface CmdJsonlAgentOptions extends ProgramOptions {
  /** How long the child may take to exit after `end` before SIGTERM (default 2000 ms). */
  graceMs?: number;
}

const STDERR_TAIL = 2000;

class CmdJsonlSession implements AgentSession {
  private readonly child: ChildProcess;
  private readonly program: Program;
  private readonly lines: string[] = [];
  private waiting: { resolve: (line: string) => void; reject: (err: Error) => void } | undefined;
  private exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private spawnError: Error | undefined;
  private stderr = "";
  private readonly exitPromise: Promise<void>;

  constructor(
    private readonly options: CmdJsonlAgentOptions,
    private readonly episode: EpisodeInfo,
  ) {
    this.program = startProgram(options, episode, { PROVING_PROTOCOL: CMD_JSONL_PROTOCOL }, [
      "pipe",
      "pipe",
      "pipe",
    ]);
    this.child = this.program.child;
    this.child.stdin?.on("error", () => {
      // EPIPE when the child is gone: reported through its exit
    });
    this.child.stderr?.setEncoding("utf8");
    this.child.stderr?.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL);
    });
    const rl = createInterface({ input: this.child.stdout! });
    rl.on("line", (line) => {
      if (line.trim() === "") return;
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = undefined;
        w.resolve(line);
      } else this.lines.push(line);
    });
    this.exitPromise = new Promise<void>((resolve) => {
      this.child.on("error", (err) => {
        this.spawnError = err;
        this.fail();
        resolve();
      });
      this.child.on("close", (code, signal) => {
        this.exited = { code, signal };
        this.fail();
        resolve();
      });
    });
  }

  private describeExit(): string {
    if (this.spawnError) return `could not start \`${this.options.command}\`: ${this.spawnError.message}`;
    const how = this.exited?.signal
      ? `was killed by ${this.exited.signal}`
      : `exited with code ${this.exited?.code}`;
    const tail = this.stderr.trim();
    return `\`${this.options.command}\` ${how} before answering${tail ? `; stderr: ${tail.slice(-500)}` : ""}`;
  }

  private fail(): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w.reject(new ProvingError("agent_exited", this.describeExit()));
    }
  }

  private send(line: GymLine): void {
    if (this.child.stdin?.writable) this.child.stdin.write(`${JSON.stringify(line)}\n`);
  }

  private nextLine(): Promise<string> {
    const buffered = this.lines.shift();
    if (buffered !== undefined) return Promise.resolve(buffered);
    if (this.exited || this.spawnError) {
      return Promise.reject(new ProvingError("agent_exited", this.describeExit()));
    }
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  async act(observation: Observation): Promise<AgentAction> {
    if (observation.kind === "task") {
      const { episodeId, world, samplingSeed } = this.episode;
      this.send({ ...observation, episode: { episodeId, world, samplingSeed } });
    } else this.send(observation);
    const line = await this.nextLine();
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new ProvingError(
        "bad_action_line",
        `\`${this.options.command}\` wrote a line that is not JSON: ${line.slice(0, 200)}`,
      );
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new ProvingError("bad_action_line", `expected an action object, got ${line.slice(0, 200)}`);
    }
    return value as AgentAction;
  }

  async end(record: TrialRecordSummary): Promise<void> {
    try {
      await this.finish(record);
    } finally {
      await cleanUpProgram(this.program);
    }
  }

  private async finish(record: TrialRecordSummary): Promise<void> {
    this.send({
      kind: "end",
      outcome: record.outcome,
      ...(record.verdict ? { verdict: record.verdict } : {}),
    });
    this.child.stdin?.end();
    if (this.exited || this.spawnError) return;
    const grace = this.options.graceMs ?? 2000;
    const timedOut = await Promise.race([
      this.exitPromise.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), grace).unref()),
    ]);
    if (!timedOut) return;
    this.kill("SIGTERM");
    const stillRunning = await Promise.race([
      this.exitPromise.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), 1000).unref()),
    ]);
    if (stillRunning) this.kill("SIGKILL");
  }

  /** Signals the child's process group (the shell and what it started), by the child's pid. */
  private kill(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      if (process.platform !== "win32") process.kill(-pid, signal);
      else this.child.kill(signal);
    } catch {
      // already gone
    }
  }
}

export function createCmdJsonlAgent(options: CmdJsonlAgentOptions): Agent {
  const withTraces = { ...options, traces: options.traces ?? new EpisodeTraces() };
  return {
    id: `cmd-jsonl:${options.command}`,
    start: (episode) => new CmdJsonlSession(withTraces, episode),
  };
}

/**
 * `cmd-jsonl:COMMAND` → an agent that runs COMMAND (through the shell) once per episode: sandboxed
 * with bwrap where available (`PROVING_AGENT_SANDBOX`), an allowlisted environment (`PROVING_AGENT_ENV`
 * adds names), an empty private working directory (see `startProgram`).
 */
export function resolveCmdJsonlAgent(
  rest: string,
  spec: string,
  cwd: string,
  baseEnv?: Readonly<Record<string, string | undefined>>,
): ResolvedAgent {
  const command = rest.trim();
  if (command === "")
    throw configError("bad_agent_spec", `${spec}: give a command, e.g. cmd-jsonl:"python my_agent.py"`);
  const settings = programSettings(baseEnv ?? {});
  const bwrap = chooseSandbox(settings.sandbox, (baseEnv ?? process.env).PATH, spec);
  const agent = createCmdJsonlAgent({
    command,
    cwd,
    ...(baseEnv ? { baseEnv } : {}),
    passEnv: settings.passEnv,
    readOnly: settings.readOnly,
    ...(bwrap ? { bwrap } : {}),
  });
  return {
    ref: {
      id: agent.id,
      kind: "cmd-jsonl",
      spec,
      config: {
        command,
        cwd,
        protocol: CMD_JSONL_PROTOCOL,
        sandbox: bwrap ? "bwrap" : "none",
        passEnv: settings.passEnv,
      },
    },
    forWorld: () => agent,
  };
}
