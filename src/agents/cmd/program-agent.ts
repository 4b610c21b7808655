/**
 * A program agent (`cmd:COMMAND` over MCP, `cmd-jsonl:COMMAND` over stdio JSON lines): how its spec
 * becomes the settings its program runs with, decided here for both kinds. The command (the spec's
 * rest, trimmed), the gym environment's `PROVING_AGENT_*` settings, the sandbox (`chooseSandbox`), the
 * agent's episode traces (the clean-start check) and the recorded `ref` are the same for every kind;
 * only the prefix, the protocol and how a session talks to the program differ.
 */
import type { Agent, AgentSession, EpisodeInfo } from "../../core/contracts.ts";
import { configError } from "../../core/errors.ts";
import type { ResolvedAgent } from "../resolve.ts";
import { EpisodeTraces } from "./episode-traces.ts";
import type { ProgramOptions } from "./program.ts";
import { programSettings } from "./program-settings.ts";
import { chooseSandbox } from "./sandbox.ts";

/** One kind of program agent: its spec prefix, the protocol its program speaks, how its agent is made. */
export interface ProgramAgentKind {
  prefix: "cmd" | "cmd-jsonl";
  protocol: string;
  create: (options: ProgramOptions) => Agent;
}

/**
 * The agent `PREFIX:COMMAND`: one session per episode (`start`), with the agent's own episode traces
 * (unless `options.traces` gives them) so each start is checked for what earlier episodes left.
 */
export function programAgent<O extends ProgramOptions>(
  prefix: ProgramAgentKind["prefix"],
  options: O,
  start: (options: O, episode: EpisodeInfo) => AgentSession | Promise<AgentSession>,
): Agent {
  const withTraces: O = { ...options, traces: options.traces ?? new EpisodeTraces() };
  return { id: `${prefix}:${options.command}`, start: (episode) => start(withTraces, episode) };
}

/** Resolves the rest of a `PREFIX:` spec (`rest`) in the run's directory with the gym's environment. */
export type ResolveProgramAgent = (
  rest: string,
  spec: string,
  cwd: string,
  baseEnv?: Readonly<Record<string, string | undefined>>,
) => ResolvedAgent;

/** The resolver of one kind of program agent (`resolveProgramAgent` with the kind given). */
export function programAgentResolver(kind: ProgramAgentKind): ResolveProgramAgent {
  return (rest, spec, cwd, baseEnv) => resolveProgramAgent(kind, rest, spec, cwd, baseEnv);
}

/**
 * `PREFIX:COMMAND` → an agent that runs COMMAND (through the shell) once per episode: sandboxed with
 * bwrap where available (`PROVING_AGENT_SANDBOX`), an allowlisted environment (`PROVING_AGENT_ENV`
 * adds names), an empty private working directory (see `startProgram`). An empty command, or a
 * required sandbox that is not there, is `bad_agent_spec`.
 */
export function resolveProgramAgent(
  kind: ProgramAgentKind,
  rest: string,
  spec: string,
  cwd: string,
  baseEnv?: Readonly<Record<string, string | undefined>>,
): ResolvedAgent {
  const command = rest.trim();
  if (command === "")
    throw configError("bad_agent_spec", `${spec}: give a command, e.g. ${kind.prefix}:"python my_agent.py"`);
  const settings = programSettings(baseEnv ?? {});
  const bwrap = chooseSandbox(settings.sandbox, (baseEnv ?? process.env).PATH, spec);
  const agent = kind.create({
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
      kind: kind.prefix,
      spec,
      config: {
        command,
        cwd,
        protocol: kind.protocol,
        sandbox: bwrap ? "bwrap" : "none",
        passEnv: settings.passEnv,
      },
    },
    forWorld: () => agent,
    ...(bwrap || settings.sandbox === "off"
      ? {}
      : {
          warnings: [
            `${spec} runs UNSANDBOXED: bubblewrap (bwrap) is missing or cannot create namespaces here, so the program has the gym user's filesystem rights (it can read the store and the checkout). Install bubblewrap, or pass --sandbox require to refuse such runs.`,
          ],
        }),
  };
}
