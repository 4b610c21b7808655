import type { Agent, Environment, Task, TaskRequest } from "./contracts.ts";
import { configError } from "./errors.ts";
import type { JsonValue } from "./json.ts";

export interface FamilyInfo {
  name: string;
  description: string;
  /** Difficulties the generator supports, e.g. [1, 2, 3, 4, 5]. */
  difficulties: number[];
}

/** Everything the gym needs to know about a world. */
export interface WorldDefinition {
  /** `name@version`. */
  id: string;
  description: string;
  verifier: string;
  families: FamilyInfo[];
  /** Deterministic: the same request always gives the same task. */
  generateTask(request: TaskRequest): Task;
  /** A fresh instance, not yet reset. */
  create(): Environment;
  /** An instance restored from what its `saveState()` returned (the world's state factory). */
  restore(state: JsonValue): Environment;
  /** Scripted policies that ship with the world, by name; `knownGood` names the one that passes every task. */
  policies: Record<string, Agent>;
  knownGood: string;
  /** Self-test expectations: the families each bad policy must fail, and the violation codes that must catch it. */
  expectedFailures: Record<string, { families: string[]; codes: string[] }>;
  /**
   * Keys of `task.params` an agent must never see (a reference answer, hidden tests): `proving audit`
   * fails the world when any of their text reaches an observation. Default: none declared.
   */
  hiddenParams?: string[];
  /**
   * Keys of `task.params` whose values the admissible actions may offer because the list derives them
   * from what the observations showed (code-repair's fixed source: a public rewrite of a file the agent
   * read), not from the params. The admissible check does not count them as hidden. Default: none.
   */
  admissibleDerivedParams?: string[];
}

/** How a saved environment looks: its type (a registered factory) and its data. */
export interface SavedEnvironment {
  type: string;
  state: JsonValue;
}

export type StateFactory = (state: JsonValue) => Environment;

/**
 * The registry of a gym's worlds and of its state factories (worlds and harness layers). An instance,
 * built by the gym's composition root (`createGym`); nothing registers itself anywhere.
 */
export class Registry {
  private readonly worlds = new Map<string, WorldDefinition>();
  private readonly factories = new Map<string, StateFactory>();

  registerWorld(world: WorldDefinition): void {
    if (this.worlds.has(world.id)) throw configError("duplicate_world", `two worlds have the id ${world.id}`);
    this.worlds.set(world.id, world);
    this.factories.set(world.id, (state) => world.restore(state));
  }

  registerFactory(type: string, fromState: StateFactory): void {
    this.factories.set(type, fromState);
  }

  /** Finds a world by `name@version`, or by bare name (the newest version registered). */
  world(id: string): WorldDefinition {
    const exact = this.worlds.get(id);
    if (exact) return exact;
    if (!id.includes("@")) {
      const candidates = [...this.worlds.values()].filter((w) => w.id.split("@")[0] === id);
      candidates.sort((a, b) => Number(b.id.split("@")[1]) - Number(a.id.split("@")[1]));
      if (candidates[0]) return candidates[0];
    }
    throw configError(
      "unknown_world",
      `unknown world "${id}" (known: ${[...this.worlds.keys()].join(", ")})`,
    );
  }

  hasWorld(id: string): boolean {
    try {
      this.world(id);
      return true;
    } catch {
      return false;
    }
  }

  listWorlds(): WorldDefinition[] {
    return [...this.worlds.values()];
  }

  save(env: Environment, type = env.spec.id): SavedEnvironment {
    return { type, state: env.saveState() };
  }

  restore(saved: SavedEnvironment): Environment {
    const factory = this.factories.get(saved.type);
    if (!factory)
      throw configError("unknown_state_type", `no registered factory for state type "${saved.type}"`);
    return factory(saved.state);
  }
}
