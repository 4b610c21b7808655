import type { Agent, Environment, Task, TrialRecord, TrialSpec } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import { ProvingError } from "../core/errors.ts";
import { hashJson } from "../core/hash.ts";
import type { JsonValue } from "../core/json.ts";
import { type FamilyInfo, Registry, type SavedEnvironment, type WorldDefinition } from "../core/registry.ts";
import { saveEnvironment } from "../harness/layer.ts";
import type { StartStates } from "../runner/clean-start.ts";
import { DEFAULT_BUDGET } from "../runner/experiment.ts";
import { runTrial } from "../runner/trial.ts";
import type { CheckOptions, CheckTarget, ExpectedFailure } from "./options.ts";
import { PRESETS } from "./presets.ts";

/** One task of the plan: a family, a difficulty and a seed of the world's generator. */
export interface Cell {
  family: string;
  difficulty: number;
  seed: number;
}

export const cellName = (c: Cell) => `${c.family} d${c.difficulty} seed ${c.seed}`;

/** Saves an environment as JSON data and builds a new one from that data. */
export interface Restorer {
  save(env: Environment): JsonValue;
  restore(saved: JsonValue): Environment;
}

function restorerOf(restore: CheckOptions["restore"]): Restorer | undefined {
  if (restore === undefined) return undefined;
  if (restore instanceof Registry) {
    return {
      save: (env) => saveEnvironment(env) as unknown as JsonValue,
      restore: (saved) => restore.restore(saved as unknown as SavedEnvironment),
    };
  }
  return { save: (env) => env.saveState(), restore };
}

const isWorld = (t: CheckTarget): t is WorldDefinition => typeof t !== "function";

/**
 * What the checks run against, resolved from the target and the options: how to build an instance,
 * the selected tasks, the policies, the way to restore (if any). It memoizes policy runs (several
 * checks read the known-good run of a task) and hands each environment it built to `dispose`.
 */
export class Subject {
  readonly world: WorldDefinition;
  readonly factory: EnvironmentFactory;
  readonly targetIsWorld: boolean;
  readonly restorer: Restorer | undefined;
  readonly policies: Record<string, Agent>;
  readonly knownGood: string;
  readonly expectedFailures: Record<string, ExpectedFailure>;
  readonly families: FamilyInfo[];
  readonly seeds: number[];
  readonly fuzzPerTool: number;
  readonly maxSteps: number;
  readonly maxActionBytes: number;
  readonly maxStringLength: number;
  readonly maxDepth: number;
  readonly badCallCodes: "ours" | "any";
  readonly expectBackgroundJobs: boolean;
  readonly randomEpisodes: number;
  readonly signalSeeds: number;
  /** Start states of the policy runs (the runner's cross-trial check: no state shared between trials). */
  readonly startStates: StartStates = new Map();
  readonly #opts: CheckOptions;
  readonly #difficulties: number[] | undefined;
  readonly #runs = new Map<string, Promise<TrialRecord>>();
  readonly #live = new Set<Environment>();

  constructor(target: CheckTarget, opts: CheckOptions) {
    this.#opts = opts;
    this.targetIsWorld = isWorld(target);
    if (isWorld(target)) {
      if (opts.world !== undefined && opts.world !== target)
        throw new ProvingError(
          "bad_check_options",
          `options.world (${opts.world.id}) is not the world being checked (${target.id})`,
        );
      this.world = target;
      this.factory = (_spec, world) => world.create();
    } else {
      if (!opts.world)
        throw new ProvingError(
          "bad_check_options",
          "checking an environment factory needs options.world: the world whose tasks and policies to use",
        );
      this.world = opts.world;
      this.factory = target;
    }
    const world = this.world;
    this.restorer = restorerOf(opts.restore ?? (this.targetIsWorld ? (s) => world.restore(s) : undefined));
    this.policies = { ...world.policies, ...(opts.policies ?? {}) };
    const preset = PRESETS[opts.preset ?? "conformance"];
    this.knownGood = opts.knownGood ?? world.knownGood;
    // a preset that plays only the known-good of the world's policies expects no failures of them
    this.expectedFailures =
      opts.expectedFailures ??
      ((preset.agents as readonly string[]).includes("policies") ? world.expectedFailures : {});
    for (const name of opts.families ?? []) {
      if (!world.families.some((f) => f.name === name))
        throw new ProvingError(
          "unknown_family",
          `${world.id} has no family "${name}" (families: ${world.families.map((f) => f.name).join(", ")})`,
        );
    }
    this.families = opts.families
      ? world.families.filter((f) => opts.families!.includes(f.name))
      : world.families;
    this.#difficulties = opts.difficulties ?? (preset.difficulties && [...preset.difficulties]);
    this.seeds = opts.seeds ?? [...preset.seeds];
    if (this.seeds.length === 0 || !this.seeds.every(Number.isInteger))
      throw new ProvingError("bad_check_options", "options.seeds must be a non-empty list of integers");
    this.fuzzPerTool = opts.fuzzPerTool ?? preset.fuzzPerTool;
    this.maxSteps = opts.maxSteps ?? preset.maxSteps;
    this.maxActionBytes = opts.maxActionBytes ?? Number.POSITIVE_INFINITY;
    this.maxStringLength = opts.maxStringLength ?? Number.POSITIVE_INFINITY;
    this.maxDepth = opts.maxDepth ?? Number.POSITIVE_INFINITY;
    this.badCallCodes = opts.badCallCodes ?? "ours";
    this.expectBackgroundJobs = opts.expectBackgroundJobs ?? false;
    this.randomEpisodes = opts.randomEpisodes ?? PRESETS.audit.randomEpisodes;
    this.signalSeeds = opts.signalSeeds ?? PRESETS.audit.signalSeeds;
  }

  /** The family's declared difficulties that are selected. */
  difficultiesOf(family: string): number[] {
    const declared = this.world.families.find((f) => f.name === family)?.difficulties ?? [];
    const only = this.#difficulties;
    return only ? declared.filter((d) => only.includes(d)) : declared;
  }

  /** Every selected (difficulty, seed) of a family. */
  cells(family: string, seeds: readonly number[] = this.seeds): Cell[] {
    return this.difficultiesOf(family).flatMap((difficulty) =>
      seeds.map((seed) => ({ family, difficulty, seed })),
    );
  }

  /** The first selected cell of the plan (for checks that need one task), if any. */
  firstCell(): Cell | undefined {
    for (const f of this.families) {
      const c = this.cells(f.name, this.seeds.slice(0, 1))[0];
      if (c) return c;
    }
    return undefined;
  }

  task(cell: Cell): Task {
    return this.world.generateTask({ family: cell.family, difficulty: cell.difficulty, seed: cell.seed });
  }

  /** A planned trial of the cell (what the factory is given; the runner plays it for policy runs). */
  spec(policy: string, cell: Cell): TrialSpec {
    return {
      schemaVersion: 1,
      id: `conformance-${hashJson({ world: this.world.id, policy, ...cell })}`,
      experimentId: "conformance",
      index: 0,
      world: this.world.id,
      family: cell.family,
      difficulty: cell.difficulty,
      seed: cell.seed,
      repeat: 0,
      agent: { id: policy, kind: "scripted", spec: policy },
      budget: {
        maxSteps: this.maxSteps,
        maxVirtualSeconds: DEFAULT_BUDGET.maxVirtualSeconds,
        ...(this.#opts.wallTimeoutMs !== undefined ? { wallTimeoutMs: this.#opts.wallTimeoutMs } : {}),
      },
    };
  }

  /** A fresh instance, not yet reset (handed to `dispose` when the check is done with it). */
  create(cell: Cell): Environment {
    return this.track(this.factory(this.spec("conformance", cell), this.world));
  }

  /** An instance restored from saved data (handed to `dispose` like the others). */
  restore(saved: JsonValue): Environment {
    if (!this.restorer) throw new ProvingError("bad_check_options", "no way to restore was given");
    return this.track(this.restorer.restore(saved));
  }

  private track(env: Environment): Environment {
    if (this.#opts.dispose) this.#live.add(env);
    return env;
  }

  /** Done with `env`: hands it to `dispose` now. */
  async release(env: Environment): Promise<void> {
    if (!this.#live.delete(env)) return;
    await this.#opts.dispose?.(env);
  }

  /** Hands an environment built outside `create` (an episode of the reference agents) to `dispose`. */
  async dispose(env: Environment): Promise<void> {
    await this.#opts.dispose?.(env);
  }

  /** Hands every environment still held to `dispose` (after each check). */
  async releaseAll(): Promise<void> {
    const held = [...this.#live];
    this.#live.clear();
    for (const env of held) await this.#opts.dispose?.(env);
  }

  /**
   * Runs a policy on a cell through the real runner (its clean-start and after-episode checks
   * included). Memoized: checks that read the same run share it; `fresh` runs it again.
   */
  runPolicy(policy: string, cell: Cell, fresh = false): Promise<TrialRecord> {
    const key = `${policy}\u0000${cellName(cell)}`;
    const memo = this.#runs.get(key);
    if (memo && !fresh) return memo;
    const agent = this.policies[policy];
    if (!agent) throw new ProvingError("unknown_agent", `${this.world.id} has no policy "${policy}"`);
    const run = runTrial(this.spec(policy, cell), {
      world: this.world,
      agent,
      environment: this.factory,
      startStates: this.startStates,
    });
    if (!memo) this.#runs.set(key, run);
    return run;
  }

  /** The known-good agent, or why there is none. */
  knownGoodProblem(): string | undefined {
    return this.policies[this.knownGood]
      ? undefined
      : `no known-good policy: "${this.knownGood}" is not one of the policies (${Object.keys(this.policies).join(", ") || "none"})`;
  }
}
