import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Agent, AgentRef } from "../core/contracts.ts";
import { configError, errorMessage } from "../core/errors.ts";
import type { WorldDefinition } from "../core/registry.ts";

/** An agent named by the user, ready to be bound to each world it plays. */
export interface ResolvedAgent {
  ref: AgentRef;
  forWorld(world: WorldDefinition): Agent;
}

/** Turns the part after `prefix:` into an agent (e.g. `openai:gpt-4o` → resolver "openai" gets "gpt-4o"). */
export type AgentResolver = (rest: string, spec: string, ctx: ResolveContext) => Promise<ResolvedAgent>;

export interface ResolveContext {
  cwd: string;
  /** Worlds the agent will play, to check scripted policy names up front. */
  worlds: WorldDefinition[];
}

const resolvers = new Map<string, AgentResolver>();

/** Adds a `prefix:` form of `--agent` (LLM providers, external commands...). */
export function registerAgentResolver(prefix: string, resolver: AgentResolver): void {
  resolvers.set(prefix, resolver);
}

export function isModulePath(spec: string): boolean {
  return /^(\.{1,2}\/|\/)/.test(spec) || /\.(m?js|ts|mts)$/.test(spec);
}

/**
 * Resolves an `--agent` spec: a scripted policy name (`cautious`), a module path
 * (`./policy.mjs`, `.ts`), or `prefix:rest` for a registered resolver.
 */
export async function resolveAgent(spec: string, ctx: ResolveContext): Promise<ResolvedAgent> {
  if (isModulePath(spec)) return loadModuleAgent(spec, ctx.cwd);
  const colon = spec.indexOf(":");
  if (colon > 0) {
    const prefix = spec.slice(0, colon);
    const rest = spec.slice(colon + 1);
    if (prefix === "scripted") return scriptedAgent(rest, ctx);
    if (prefix === "module") return loadModuleAgent(rest, ctx.cwd);
    const resolver = resolvers.get(prefix);
    if (!resolver) {
      throw configError(
        "unknown_agent",
        `unknown agent kind "${prefix}:" in "${spec}" (known: scripted:, module:${[...resolvers.keys()].map((k) => `, ${k}:`).join("")})`,
      );
    }
    return resolver(rest, spec, ctx);
  }
  return scriptedAgent(spec, ctx);
}

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

/** Loads an ES module whose default export is an Agent `{id, start(episode) → {act(obs) → Promise<Action>}}`. */
export async function loadModuleAgent(file: string, cwd: string): Promise<ResolvedAgent> {
  const full = path.resolve(cwd, file);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(full).href)) as Record<string, unknown>;
  } catch (err) {
    throw configError("bad_agent_module", `cannot load agent module ${file}: ${errorMessage(err)}`);
  }
  const agent = mod.default as Partial<Agent> | undefined;
  if (agent === undefined || agent === null) {
    throw configError(
      "bad_agent_module",
      `agent module ${file} has no default export (export default {id, start})`,
    );
  }
  if (typeof agent !== "object" || typeof agent.start !== "function") {
    throw configError(
      "bad_agent_module",
      `agent module ${file}: the default export must be an object with start(episode)`,
    );
  }
  const id = typeof agent.id === "string" && agent.id.length > 0 ? agent.id : path.basename(file);
  const rel = path.relative(cwd, full) || file;
  return {
    ref: { id, kind: "module", spec: rel.startsWith(".") || path.isAbsolute(rel) ? rel : `./${rel}` },
    forWorld: () => agent as Agent,
  };
}
