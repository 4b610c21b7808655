import type { Environment, TrialSpec } from "../core/contracts.ts";
import type { EnvironmentFactory } from "../core/environment-factory.ts";
import type { WorldDefinition } from "../core/registry.ts";

/** What an instance looked like when its last episode ended, so its next user can tell if it moved since. */
export interface EpisodeEnd {
  /** Trial id (episode id) of the episode that used the instance last. */
  episodeId: string;
  /** `stateHash()` after that episode ended. */
  endHash: string;
}

export interface AcquiredEnvironment {
  env: Environment;
  /** Set when the instance served an earlier trial (its reset must clean it; the runner checks that it did). */
  previous?: EpisodeEnd;
}

/**
 * One worker's instances, kept across its trials (one per world/variant) so that a trial can run on
 * an instance an earlier trial used. The runner only uses it when asked (`reuseEnvironments`): reuse
 * is what real deployments do with expensive worlds, and it is where a broken reset bites, so the
 * clean-start check has to catch it. A pool belongs to one worker: an instance is never shared by two
 * trials at once.
 */
export class EnvironmentPool {
  readonly #factory: EnvironmentFactory;
  readonly #idle = new Map<string, { env: Environment; end: EpisodeEnd }>();
  #created = 0;
  #reused = 0;

  constructor(factory: EnvironmentFactory) {
    this.#factory = factory;
  }

  /** An idle instance for this trial's world/variant, or a new one. */
  acquire(spec: TrialSpec, world: WorldDefinition): AcquiredEnvironment {
    const key = poolKey(spec);
    const held = this.#idle.get(key);
    if (held) {
      this.#idle.delete(key);
      this.#reused++;
      return { env: held.env, previous: held.end };
    }
    this.#created++;
    return { env: this.#factory(spec, world) };
  }

  /**
   * Gives an instance back after its episode; `undefined` drops it (crashed, contaminated, timed
   * out), closed.
   */
  async release(spec: TrialSpec, env: Environment, end: EpisodeEnd | undefined): Promise<void> {
    if (end) this.#idle.set(poolKey(spec), { env, end });
    else await closeEnvironment(env);
  }

  /** Instances built and reuses handed out so far. */
  get stats(): { created: number; reused: number } {
    return { created: this.#created, reused: this.#reused };
  }
}

function poolKey(spec: TrialSpec): string {
  return `${spec.world}\u0000${spec.variantId ?? ""}`;
}

/**
 * Closes an instance the runner is done with (`Environment.close`: a remote session goes back to its
 * server). A close that fails changes nothing recorded: the trial has ended.
 */
export async function closeEnvironment(env: Environment): Promise<void> {
  try {
    await env.close?.();
  } catch {
    // the instance is dropped either way
  }
}
