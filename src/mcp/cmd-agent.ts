/**
 * `cmd:COMMAND`: an external program as an agent that acts through MCP (protocol: mcp-protocol.ts).
 * Per episode: an `McpBridge` turns the program's tool calls into this session's actions, served
 * over streamable HTTP on 127.0.0.1 with a random bearer token; the program is started through the
 * shell with the endpoint in its environment. When the trial ends its process group is stopped and
 * the server closed.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { CMD_MCP_PROTOCOL } from "../agents/cmd/mcp-protocol.ts";
import {
  cleanUpProgram,
  describeExit,
  type Program,
  type ProgramOptions,
  signalGroup,
  startProgram,
  stopProgram,
  wait,
  watchExit,
} from "../agents/cmd/program.ts";
import { programAgent, programAgentResolver, type ResolveProgramAgent } from "../agents/cmd/program-agent.ts";
import type {
  Agent,
  AgentAction,
  AgentSession,
  EpisodeInfo,
  Observation,
  TrialRecordSummary,
} from "../core/contracts.ts";
import { TrialEnd } from "../core/trial-end.ts";
import { McpBridge } from "./bridge.ts";
import { type McpHttpServer, serveMcpHttp } from "./http.ts";
import { createMcpServer } from "./server.ts";

export interface CmdAgentOptions extends ProgramOptions {
  /** How long the child may take to exit once the trial has ended, before SIGTERM (default 2000 ms). */
  graceMs?: number;
  /** Called once per episode when the program has been started (tests, progress). */
  onSpawn?: (info: { pid: number | undefined; url: string; episodeId: string; sandboxed: boolean }) => void;
}

class CmdMcpSession implements AgentSession {
  private child: ChildProcess | undefined;
  private program: Program | undefined;
  private exited = false;
  private exitPromise: Promise<void> = Promise.resolve();
  private ended = false;

  private constructor(
    private readonly options: CmdAgentOptions,
    private readonly bridge: McpBridge,
    private readonly inner: AgentSession,
    private readonly server: McpHttpServer,
  ) {}

  static async start(options: CmdAgentOptions, episode: EpisodeInfo): Promise<CmdMcpSession> {
    const bridge = new McpBridge(`cmd:${options.command}`);
    const inner = await bridge.agent.start(episode);
    const token = randomBytes(24).toString("base64url");
    const server = await serveMcpHttp(
      {
        bridge,
        createServer: async () =>
          createMcpServer(bridge, { instructions: episode.instruction, tools: episode.tools }),
      },
      { host: "127.0.0.1", port: 0, token },
    );
    const session = new CmdMcpSession(options, bridge, inner, server);
    try {
      session.spawn(episode, token);
    } catch (err) {
      await server.close(); // a start that is not clean (`contaminated`): nothing was started
      throw err;
    }
    return session;
  }

  private spawn(episode: EpisodeInfo, token: string): void {
    const { command } = this.options;
    let child: ChildProcess;
    try {
      this.program = startProgram(
        this.options,
        episode,
        { PROVING_PROTOCOL: CMD_MCP_PROTOCOL, PROVING_MCP_URL: this.server.url, PROVING_MCP_TOKEN: token },
        ["ignore", "pipe", "pipe"],
      );
      child = this.program.child;
    } catch (err) {
      if (err instanceof TrialEnd) throw err;
      this.exited = true;
      this.bridge.disconnect(`could not start \`${command}\`: ${(err as Error).message}`);
      return;
    }
    this.child = child;
    child.stdout?.resume(); // drained, ignored
    const program = this.program;
    this.exitPromise = watchExit(child, (exit) => {
      this.exited = true;
      this.bridge.disconnect(describeExit(command, exit, program.stderrTail(), "before the episode ended"));
    });
    this.options.onSpawn?.({
      pid: child.pid,
      url: this.server.url,
      episodeId: episode.episodeId,
      sandboxed: program.sandboxed,
    });
  }

  act(observation: Observation): Promise<AgentAction> {
    return this.inner.act(observation);
  }

  async end(record: TrialRecordSummary): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    try {
      // answers the call in flight (the terminal one gets the verdict) and every later call
      await this.inner.end?.(record);
      if (this.child && !this.exited)
        await stopProgram(this.child, this.exitPromise, this.options.graceMs ?? 2000);
      // whatever the shell left behind in the group; then give the kernel a moment to take it down
      if (this.child && signalGroup(this.child, "SIGKILL")) await this.groupGone(1000);
    } finally {
      if (this.program) await cleanUpProgram(this.program);
      await this.server.close();
    }
  }

  /**
   * Waits (at most `ms`) until the group is empty. Members orphaned by the shell's death are not ours
   * to wait for; a zombie left to init still counts as a member, hence the bound.
   */
  private async groupGone(ms: number): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined || process.platform === "win32") return;
    const until = Date.now() + ms;
    while (Date.now() < until) {
      try {
        process.kill(-pid, 0);
      } catch {
        return;
      }
      await wait(20);
    }
  }
}

/** An agent that runs `options.command` once per episode and lets it act through MCP. */
export function createCmdAgent(options: CmdAgentOptions): Agent {
  return programAgent("cmd", options, (o, episode) => CmdMcpSession.start(o, episode));
}

/** `cmd:COMMAND` → an agent that runs COMMAND once per episode, acting over MCP, set up as `resolveProgramAgent` says. */
export const resolveCmdAgent: ResolveProgramAgent = programAgentResolver({
  prefix: "cmd",
  protocol: CMD_MCP_PROTOCOL,
  create: createCmdAgent,
});
