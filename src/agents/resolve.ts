import path from "node:path";
import type { Agent, AgentRef } from "../core/contracts.ts";
import { configError, errorMessage } from "../core/errors.ts";
import type { WorldDefinition } from "../core/registry.ts";
import type { LearnerPolicy } from "../learners/policy.ts";
import type { PolicyStore } from "../store/policies.ts";
import { programSettings } from "./cmd/program-settings.ts";
import { chooseSandbox } from "./cmd/sandbox.ts";
import { importAgentModule } from "./import-module.ts";
import {
  isolatedModuleAgent,
  type ModuleAgentLimits,
  type ModuleAgentPlacement,
  prepareModule,
  probeAgentModule,
} from "./isolated-module-agent.ts";
import { LimiterPool } from "./llm/limiter.ts";
import { PriceTable } from "./llm/prices.ts";

/** An agent named by the user, ready to be bound to each world it plays. */
export interface ResolvedAgent {
  ref: AgentRef;
  forWorld(world: WorldDefinition): Agent;
  /**
   * The agent carries what it learns from one trial into the next (a learner): a run plays its
   * trials one at a time, in manifest order, so its updates are deterministic.
   */
  ordered?: boolean;
  /**
   * Called once when a run that resolved the agent ends (`end`: which experiment or curriculum run):
   * a learner saves its policy (to the run's store, and to `save=FILE`) and answers its id.
   */
  finish?(end?: AgentRunEnd): Promise<AgentFinished | undefined>;
  /**
   * What the agent has learned so far, as plain JSON (a learner's content-hashed policy): what a
   * curriculum run checkpoints with its snapshots. Absent: the agent learns nothing across trials.
   */
  checkpoint?(): LearnerPolicy;
  /** Continues from a checkpoint (a resumed curriculum run): later trials play that policy. */
  restoreCheckpoint?(policy: LearnerPolicy): void;
  /**
   * The agent as it is now, frozen (a learner: its current policy, greedy, never updated): what an
   * evaluation plays, with the same ref. Absent: the agent does not learn.
   */
  frozen?(): ResolvedAgent;
  /** What the person running the gym must know before trusting the run (an agent playing unsandboxed). */
  warnings?: string[];
}

/** What a run tells its agents when it ends. */
export interface AgentRunEnd {
  /** The experiment (or curriculum run) that ended. */
  experimentId: string;
}

/** What an agent answers when its run ends: a learner, the policy it ends with. */
export interface AgentFinished {
  /** The policy's content hash. */
  policy?: string;
  /** Whether it was saved to the run's store (a learner that trained, with a store). */
  saved?: boolean;
}

/** What resolving an `--agent` spec may use; everything is injected by the gym. */
export interface ResolveContext extends RunResources {
  cwd: string;
  /** Worlds the agent will play, to check scripted policy names up front. */
  worlds: WorldDefinition[];
  /** The environment agent kinds read (API keys, base URLs): the gym's, never `process.env` directly. */
  env: Readonly<Record<string, string | undefined>>;
  prices: PriceTable;
  /** Provider-endpoint limiters shared by the gym's LLM agents. */
  limiters: LimiterPool;
}

/**
 * A `prefix:` form of `--agent` (`openai:gpt-4o` → kind "openai" gets "gpt-4o"). Kinds are plain
 * values handed to the gym (`createGym({agentKinds})`); their heavy code loads when a spec uses them.
 */
export interface AgentKind {
  prefix: string;
  description: string;
  resolve(rest: string, spec: string, ctx: ResolveContext): Promise<ResolvedAgent>;
}

/** What the run that resolves an agent lends it: its store's policies and its clock. */
export interface RunResources {
  /** The run's store, where a learner's policies are kept (`learner:q?policy=ID` reads them). */
  policies?: PolicyStore;
  /** The run's clock (a saved policy's creation time). Default: the wall clock. */
  now?: () => Date;
}

/** Resolves an `--agent` spec for the worlds it will play: the gym's resolver, injected into the runner. */
export type ResolveAgent = (
  spec: string,
  ctx: { cwd: string; worlds: WorldDefinition[] } & RunResources,
) => Promise<ResolvedAgent>;

/** Prefixes every resolver understands without a kind: `scripted:NAME` and `module:PATH`. */
const BUILT_IN_PREFIXES = ["scripted", "module"];

export function isModulePath(spec: string): boolean {
  return /^(\.{1,2}\/|\/)/.test(spec) || /\.(m?js|ts|mts)$/.test(spec);
}

/**
 * Resolves `--agent` specs against a fixed set of agent kinds: a scripted policy name (`cautious`), a
 * module path (`./policy.mjs`, `.ts`), or `prefix:rest` for a kind. A known `prefix:` wins over the
 * module-path form, so `cmd:node agent.mjs` is a command, not a file.
 */
export class AgentResolver {
  readonly #kinds = new Map<string, AgentKind>();

  constructor(kinds: readonly AgentKind[] = []) {
    for (const kind of kinds) {
      if (!/^[a-z][a-z0-9-]*$/.test(kind.prefix) || BUILT_IN_PREFIXES.includes(kind.prefix)) {
        throw configError("bad_agent_kind", `agent kind prefix "${kind.prefix}" is not allowed`);
      }
      if (this.#kinds.has(kind.prefix)) {
        throw configError("duplicate_agent_kind", `two agent kinds have the prefix "${kind.prefix}"`);
      }
      this.#kinds.set(kind.prefix, kind);
    }
  }

  /** The kinds' prefixes, in the order given. */
  prefixes(): string[] {
    return [...this.#kinds.keys()];
  }

  kinds(): AgentKind[] {
    return [...this.#kinds.values()];
  }

  async resolve(spec: string, ctx: ResolveContext): Promise<ResolvedAgent> {
    const colon = spec.indexOf(":");
    const prefix = colon > 0 ? spec.slice(0, colon) : "";
    const rest = spec.slice(colon + 1);
    const kind = this.#kinds.get(prefix);
    if (kind) return kind.resolve(rest, spec, ctx);
    if (prefix === "scripted") return scriptedAgent(rest, ctx);
    if (prefix === "module") return loadModuleAgent(rest, ctx.cwd, { env: ctx.env });
    if (isModulePath(spec)) return loadModuleAgent(spec, ctx.cwd, { env: ctx.env });
    if (/^[a-z][a-z0-9-]*$/.test(prefix)) {
      const known = [...BUILT_IN_PREFIXES, ...this.#kinds.keys()].map((k) => `${k}:`).join(", ");
      throw configError("unknown_agent", `unknown agent kind "${prefix}:" in "${spec}" (known: ${known})`);
    }
    return scriptedAgent(spec, ctx);
  }
}

/**
 * Scripted policies and module agents only: what resolves agents when no gym is given (the resolver
 * of a gym without agent kinds, environment, prices or shared limiters).
 */
export const resolveScriptedOrModule: ResolveAgent = (spec, ctx) =>
  new AgentResolver().resolve(spec, {
    ...ctx,
    env: {},
    prices: new PriceTable(),
    limiters: new LimiterPool(),
  });

function scriptedAgent(name: string, ctx: ResolveContext): ResolvedAgent {
  for (const world of ctx.worlds) {
    if (!world.policies[name]) {
      const known = Object.keys(world.policies).join(", ");
      throw configError(
        "unknown_agent",
        `unknown agent "${name}" for ${world.id} (scripted policies: ${known}; or ./module.mjs)`,
      );
    }
  }
  return {
    ref: { id: name, kind: "scripted", spec: name },
    forWorld: (world) => {
      const agent = world.policies[name];
      if (!agent) throw configError("unknown_agent", `world ${world.id} has no scripted policy "${name}"`);
      return agent;
    },
  };
}

/** How `loadModuleAgent` runs the module. */
export interface ModuleAgentOptions extends ModuleAgentLimits {
  /**
   * Run the module in the caller's process (trusted code: tests, benchmarks' baseline). Default:
   * isolated, in a process of its own per run (`isolatedModuleAgent`).
   */
  inProcess?: boolean;
  /**
   * The gym's environment: what the agent's process may be given (`PATH`, locale, `--agent-env`
   * names), and the sandbox setting (`PROVING_AGENT_SANDBOX`, `CI`), as for `cmd:` agents.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Loads an ES module whose default export is an Agent `{id, start(episode) → {act(obs) → Promise<Action>}}`.
 * The module is checked (and its `id` read) in a throwaway process and, unless `inProcess`, the run
 * plays it in a process of its own (under bubblewrap where it works, as `cmd:` programs are; with a
 * warning where it does not, and refused then under `--sandbox require`): the module's code never
 * runs in the runner. The run's end (`finish`) stops that process.
 */
export async function loadModuleAgent(
  file: string,
  cwd: string,
  options: ModuleAgentOptions = {},
): Promise<ResolvedAgent> {
  const full = path.resolve(cwd, file);
  const rel = path.relative(cwd, full) || file;
  const spec = rel.startsWith(".") || path.isAbsolute(rel) ? rel : `./${rel}`;
  if (options.inProcess) return inProcessModuleAgent(file, full, spec);
  const env = options.env ?? {};
  const settings = programSettings(env);
  const bwrap = chooseSandbox(settings.sandbox, env.PATH, spec);
  const prepared = await prepareModule(full);
  const placement: ModuleAgentPlacement = {
    files: prepared.files,
    baseEnv: env,
    passEnv: settings.passEnv,
    readOnly: settings.readOnly,
    ...(bwrap ? { bwrap } : {}),
  };
  const probe = await probeAgentModule(prepared.entry, options, placement);
  if (!probe.ok) {
    prepared.dispose();
    throw moduleError(file, probe.problem, probe.message);
  }
  const id = probe.id.length > 0 ? probe.id : path.basename(file);
  const agent = isolatedModuleAgent(id, prepared.entry, options, placement);
  return {
    ref: { id, kind: "module", spec, config: { sandbox: bwrap ? "bwrap" : "permission" } },
    forWorld: () => agent,
    async finish() {
      agent.stop();
      prepared.dispose();
      return undefined;
    },
    ...(bwrap || settings.sandbox === "off"
      ? {}
      : {
          warnings: [
            `${spec} runs without bubblewrap (missing, or it cannot create namespaces here): Node's permission model keeps its process from writing files, spawning and reading beyond its own directory, but not from the network or from signalling the runner. Install bubblewrap, or pass --sandbox require to refuse such runs.`,
          ],
        }),
  };
}

function moduleError(file: string, problem: "no_default" | "not_agent" | "load_failed", message: string) {
  if (problem === "no_default")
    return configError(
      "bad_agent_module",
      `agent module ${file} has no default export (export default {id, start})`,
    );
  if (problem === "not_agent")
    return configError(
      "bad_agent_module",
      `agent module ${file}: the default export must be an object with start(episode)`,
    );
  return configError("bad_agent_module", `cannot load agent module ${file}: ${message}`);
}

async function inProcessModuleAgent(file: string, full: string, spec: string): Promise<ResolvedAgent> {
  let mod: Record<string, unknown>;
  try {
    mod = await importAgentModule(full);
  } catch (err) {
    throw moduleError(file, "load_failed", errorMessage(err));
  }
  const agent = mod.default as Partial<Agent> | undefined;
  if (agent === undefined || agent === null) throw moduleError(file, "no_default", "");
  if (typeof agent !== "object" || typeof agent.start !== "function")
    throw moduleError(file, "not_agent", "");
  const id = typeof agent.id === "string" && agent.id.length > 0 ? agent.id : path.basename(file);
  return { ref: { id, kind: "module", spec }, forWorld: () => agent as Agent };
}
