import { LimiterPool } from "../agents/llm/limiter.ts";
import { type ModelPrice, PriceTable } from "../agents/llm/prices.ts";
import { type AgentKind, AgentResolver, type ResolveAgent, type ResolvedAgent } from "../agents/resolve.ts";
import type { JsonValue } from "../core/json.ts";
import { Registry, type WorldDefinition } from "../core/registry.ts";
import { Harness } from "../harness/harness.ts";
import type { Handoff } from "../harness/link-layer.ts";
import type { RuleDefinition } from "../harness/rule.ts";
import { variantId } from "../harness/variant.ts";
import type { RunParts } from "../runner/run-parts.ts";
import { resolveTarget, type ServeTarget } from "../serve/target.ts";
import { GYM_SCHEMA_VERSION, type GymDescription } from "./description.ts";

/** What a gym is made of: plain values, wired by `createGym` (nothing registers itself anywhere). */
export interface GymParts {
  worlds?: readonly WorldDefinition[];
  // biome-ignore lint/suspicious/noExplicitAny: each definition is typed by its own params schema
  rules?: readonly RuleDefinition<any>[];
  handoffs?: readonly Handoff[];
  agentKinds?: readonly AgentKind[];
  /** Prices added to (or replacing) the built-in table, by `provider:model` or model id. */
  prices?: Record<string, ModelPrice>;
  /**
   * Module specifiers of the plugins the custom parts came from, recorded in the description so
   * another process can import them again (`loadGym`). Parts given as values without a plugin cannot
   * be rebuilt elsewhere, and `loadGym` says so.
   */
  plugins?: readonly string[];
  /** The environment agent kinds read (API keys, base URLs). Default: none. Never in the description. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The provider-endpoint limiters (default: a fresh pool of this gym's own). A queue worker gives one
   * that shares a global budget through Redis. Never in the description.
   */
  limiters?: LimiterPool;
  /**
   * Where the warnings of resolved agents go (an agent that will play unsandboxed): the CLI prints
   * them on stderr. Default: dropped (a library caller reads `ResolvedAgent.warnings`). Never in the
   * description.
   */
  warn?: (message: string) => void;
}

/** The runner's injected dependencies, as the gym wires them (what features that run trials receive). */
export type GymRunOptions = RunParts;

/**
 * A gym: the instances every command and every worker of one experiment share — the world registry
 * (with the state factories of worlds and layers), the harness that builds variants, the agent
 * resolver, the price table and the provider limiters. Build it with `createGym` or `defaultGym`;
 * `describe()` is plain JSON from which `loadGym` builds the same gym in another process.
 */
export class Gym {
  readonly registry = new Registry();
  readonly harness: Harness;
  readonly agents: AgentResolver;
  readonly prices: PriceTable;
  readonly limiters: LimiterPool;
  readonly plugins: readonly string[];
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #warn: ((message: string) => void) | undefined;

  constructor(parts: GymParts = {}) {
    for (const world of parts.worlds ?? []) this.registry.registerWorld(world);
    this.harness = new Harness(this.registry, { rules: parts.rules ?? [], handoffs: parts.handoffs ?? [] });
    this.agents = new AgentResolver(parts.agentKinds ?? []);
    this.prices = new PriceTable(parts.prices ?? {});
    this.plugins = [...(parts.plugins ?? [])];
    this.#env = { ...(parts.env ?? {}) };
    this.limiters = parts.limiters ?? new LimiterPool();
    this.#warn = parts.warn;
  }

  /** A world by `name@version`, or by bare name (its newest version). */
  world(id: string): WorldDefinition {
    return this.registry.world(id);
  }

  worlds(): WorldDefinition[] {
    return this.registry.listWorlds();
  }

  /** Resolves an `--agent` spec (scripted policy, module path, or `kind:rest`) for the worlds it plays. */
  resolveAgent: ResolveAgent = async (spec, ctx): Promise<ResolvedAgent> => {
    const resolved = await this.agents.resolve(spec, {
      ...ctx,
      env: this.#env,
      prices: this.prices,
      limiters: this.limiters,
    });
    for (const warning of resolved.warnings ?? []) this.#warn?.(warning);
    return resolved;
  };

  /** What `runExperiment` needs from the gym: its registry, agent resolver, and variant builder. */
  runOptions(): GymRunOptions {
    return {
      registry: this.registry,
      resolveAgent: this.resolveAgent,
      environment: this.harness.environment,
      planVariants: this.harness.planVariants,
      variantId: (variant) => this.harness.variantId(variant),
    };
  }

  /** What `proving serve` and `proving mcp` play: a world, or a variant built by this gym's harness. */
  target(world: string | undefined, variant?: JsonValue): ServeTarget {
    return resolveTarget(this.registry, world, variant, (input) => {
      const spec = this.harness.normalize(input);
      return { id: variantId(spec), world: spec.world, create: () => this.harness.build(spec) };
    });
  }

  /** The gym as plain JSON: enough for `loadGym` to rebuild it in another process. */
  describe(): GymDescription {
    return {
      schemaVersion: GYM_SCHEMA_VERSION,
      plugins: [...this.plugins],
      worlds: this.worlds().map((w) => w.id),
      rules: this.harness.ruleIds(),
      handoffs: this.harness.handoffIds(),
      agentKinds: this.agents.prefixes(),
      prices: this.prices.added(),
    };
  }
}

/**
 * A gym of exactly these parts.
 *
 * @example
 * ```ts
 * const gym = createGym({ worlds: [myWorld], rules: [myRule] }); // nothing built in
 * const env = gym.harness.build({ world: "my-world@1", layers: [{ id: "rule.mine@1", params: {} }] });
 * ```
 */
export function createGym(parts: GymParts = {}): Gym {
  return new Gym(parts);
}
