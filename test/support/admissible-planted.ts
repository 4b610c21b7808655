/**
 * Planted worlds for the admissible-actions check: the toy world (`toy@1`) with an admissible-actions
 * list declared over it: the toy's own (`TOY_ADMISSIBLE`), or that list broken in one of the ways a
 * list can be.
 */
import type {
  AdmissibleAction,
  Environment,
  EnvironmentCapabilities,
  ResetOptions,
} from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import type { WorldDefinition } from "../../src/core/registry.ts";
import { TOY_ADMISSIBLE, ToyWorld, toyWorld } from "./toy-world.ts";

export type AdmissibleBug =
  /** No list at all: the capability is not declared. */
  | "undeclared"
  /** The list changes between two calls in the same state. */
  | "nondeterministic"
  /** 70 actions (past the 64 a list may hold). */
  | "too-long"
  /** An `add` with `n: 9` (its schema allows 1..5). */
  | "schema-invalid"
  /** A `finish` whose note is the task's hidden target, before `peek` showed it. */
  | "hidden-leak"
  /** `add` never offers `n: 5`, which the known-good agent sends. */
  | "misses-known-good";

/** The toy world wrapped so it declares a list (broken by `bug`, if given). */
class PlantedToy implements Environment {
  readonly capabilities: EnvironmentCapabilities;
  #calls = 0;
  #peeked = false;
  #secret = "";

  constructor(
    private readonly inner: ToyWorld,
    bug: AdmissibleBug | undefined,
  ) {
    const list = (): AdmissibleAction[] => {
      const base = TOY_ADMISSIBLE.map((a) => ({ tool: a.tool, args: { ...a.args } as JsonObject }));
      switch (bug) {
        case "nondeterministic":
          return this.#calls++ % 2 ? base : base.slice(1);
        case "too-long":
          return [
            ...base,
            ...Array.from({ length: 62 }, (_, i) => ({ tool: "finish", args: { note: `n${i}` } })),
          ];
        case "schema-invalid":
          return [...base, { tool: "add", args: { n: 9 } }];
        case "hidden-leak":
          return this.#peeked
            ? base
            : [...base, { tool: "finish", args: { note: `target ${this.#secret}` } }];
        case "misses-known-good":
          return base.filter((a) => !(a.tool === "add" && a.args.n === 5));
        default:
          return base;
      }
    };
    this.capabilities =
      bug === "undeclared"
        ? { inspection: inner }
        : { ...inner.capabilities, admissible: { admissibleActions: list } };
  }

  get spec() {
    return this.inner.spec;
  }

  async reset(opts: ResetOptions) {
    this.#peeked = false;
    this.#secret = String((opts.task.params as { secret_word?: string }).secret_word ?? "");
    return this.inner.reset(opts);
  }

  async step(action: Parameters<Environment["step"]>[0]) {
    if (action.tool === "peek") this.#peeked = true;
    return this.inner.step(action);
  }

  observe() {
    return this.inner.observe();
  }

  evaluate() {
    return this.inner.evaluate();
  }

  saveState() {
    return this.inner.saveState();
  }
}

/**
 * The toy world whose tasks carry a hidden `secret_word` param (never shown by any tool), and the
 * factory of its planted environments for `checkEnvironment(factory, {world})`.
 */
export function plantedToy(bug?: AdmissibleBug): {
  world: WorldDefinition;
  factory: () => Environment;
} {
  const base = toyWorld();
  const world: WorldDefinition = {
    ...base,
    generateTask: (req) => {
      const task = base.generateTask(req);
      return { ...task, params: { ...task.params, secret_word: `zebra-${req.seed}-${req.difficulty}` } };
    },
  };
  return { world, factory: () => new PlantedToy(new ToyWorld({}), bug) };
}
