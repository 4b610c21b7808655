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
import { ProvingError } from "../../core/errors.ts";
import { CMD_JSONL_PROTOCOL, type GymLine } from "./jsonl-protocol.ts";
import {
  cleanUpProgram,
  describeExit,
  type Program,
  type ProgramExit,
  type ProgramOptions,
  startProgram,
  stopProgram,
  watchExit,
} from "./program.ts";
import { programAgent, programAgentResolver, type ResolveProgramAgent } from "./program-agent.ts";

export interface CmdJsonlAgentOptions extends ProgramOptions {
  /** How long the child may take to exit after `end` before SIGTERM (default 2000 ms). */
  graceMs?: number;
}

class CmdJsonlSession implements AgentSession {
  private readonly child: ChildProcess;
  private readonly program: Program;
  private readonly lines: string[] = [];
  private waiting: { resolve: (line: string) => void; reject: (err: Error) => void } | undefined;
  /** How the program ended (a failed start wins over the close that follows it), once it has. */
  private exit: ProgramExit | undefined;
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
    const rl = createInterface({ input: this.child.stdout! });
    rl.on("line", (line) => {
      if (line.trim() === "") return;
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = undefined;
        w.resolve(line);
      } else this.lines.push(line);
    });
    this.exitPromise = watchExit(this.child, (exit) => {
      if (this.exit === undefined || "error" in exit) this.exit = exit;
      this.fail();
    });
  }

  private exitedError(exit: ProgramExit): ProvingError {
    return new ProvingError(
      "agent_exited",
      describeExit(this.options.command, exit, this.program.stderrTail(), "before answering"),
    );
  }

  private fail(): void {
    if (this.waiting && this.exit) {
      const w = this.waiting;
      this.waiting = undefined;
      w.reject(this.exitedError(this.exit));
    }
  }

  private send(line: GymLine): void {
    if (this.child.stdin?.writable) this.child.stdin.write(`${JSON.stringify(line)}\n`);
  }

  private nextLine(): Promise<string> {
    const buffered = this.lines.shift();
    if (buffered !== undefined) return Promise.resolve(buffered);
    if (this.exit) return Promise.reject(this.exitedError(this.exit));
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
    if (this.exit) return;
    await stopProgram(this.child, this.exitPromise, this.options.graceMs ?? 2000);
  }
}

export function createCmdJsonlAgent(options: CmdJsonlAgentOptions): Agent {
  return programAgent("cmd-jsonl", options, (o, episode) => new CmdJsonlSession(o, episode));
}

/** `cmd-jsonl:COMMAND` → an agent that runs COMMAND once per episode, set up as `resolveProgramAgent` says. */
export const resolveCmdJsonlAgent: ResolveProgramAgent = programAgentResolver({
  prefix: "cmd-jsonl",
  protocol: CMD_JSONL_PROTOCOL,
  create: createCmdJsonlAgent,
});
