/**
 * Which task a reset plays: the family, difficulty and seed it sent, and for the rest the server's
 * defaults (the families and difficulties a reset may be given, `EpisodeDefaults`).
 *
 * - A reset **with a seed** derives what it did not send from that seed alone: a generator seeded by
 *   (seed, world id) picks the family among the allowed ones, then the difficulty among the family's
 *   allowed ones. The same request gives the same task, hence the same episode, on any server of the
 *   same world with the same defaults; the request decides the task, so its client is told all of it.
 * - A reset **without a seed** (none, `null` or `-1`) draws what it did not send, the seed included,
 *   from the server's random source; what the server drew stays hidden from a client (`disclosure.ts`).
 */

import { quoteInput } from "../core/quote-input.ts";
import type { WorldDefinition } from "../core/registry.ts";
import { Rng } from "../core/rng.ts";
import type { ChosenTask } from "./disclosure.ts";
import { type ResetParams, ServeError } from "./protocol.ts";

/** What a reset may be given when it does not say (the server's defaults). */
export interface TaskChoiceDefaults {
  /** Families a reset picks among (default: every family of the world). */
  families?: string[];
  /** Difficulties a reset picks among, of those the family has (default: [1]). */
  difficulties?: number[];
}

export interface ChosenReset {
  family: string;
  difficulty: number;
  seed: number;
  /** What the request decided (echoed to its client): all three when it sent a seed. */
  chosen: ChosenTask;
}

/** The generator a seeded reset derives its family and difficulty from (one stream per world). */
function seededPicker(seed: number, world: WorldDefinition): () => number {
  const rng = Rng.seeded(seed, `proving-serve/reset/${world.id}`);
  return () => rng.next();
}

const pickFrom = <T>(items: readonly T[], random: () => number): T =>
  items[Math.floor(random() * items.length)];

/**
 * The task of a reset: `params` as sent, the rest derived from its seed or (no seed) drawn from
 * `random`. Throws `VALIDATION_ERROR` for a family or difficulty the world does not have.
 */
export function chooseTask(
  world: WorldDefinition,
  defaults: TaskChoiceDefaults,
  params: ResetParams,
  random: () => number,
): ChosenReset {
  const draw = params.seed === undefined ? random : seededPicker(params.seed, world);
  const families = defaults.families?.length ? defaults.families : world.families.map((f) => f.name);
  // a seeded reset always draws both picks, so a sent family leaves the difficulty's draw where it was
  const drawnFamily =
    params.family === undefined || params.seed !== undefined ? pickFrom(families, draw) : "";
  const family = params.family ?? drawnFamily;
  const info = world.families.find((f) => f.name === family);
  if (!info) {
    throw new ServeError(
      "VALIDATION_ERROR",
      `reset.family: unknown family "${quoteInput(family, 64)}" for ${world.id} (known: ${world.families.map((f) => f.name).join(", ")})`,
    );
  }
  const difficulties = (defaults.difficulties ?? [1]).filter((d) => info.difficulties.includes(d));
  const difficulty =
    params.difficulty ?? (difficulties.length ? pickFrom(difficulties, draw) : info.difficulties[0]);
  if (!info.difficulties.includes(difficulty)) {
    throw new ServeError(
      "VALIDATION_ERROR",
      `reset.difficulty: ${world.id}/${family} has no difficulty ${difficulty} (has ${info.difficulties.join(", ")})`,
    );
  }
  if (params.seed !== undefined) {
    const seed = params.seed;
    return { family, difficulty, seed, chosen: { family, difficulty, seed } };
  }
  const seed = Math.floor(random() * 2 ** 31);
  return {
    family,
    difficulty,
    seed,
    chosen: {
      ...(params.family !== undefined ? { family: params.family } : {}),
      ...(params.difficulty !== undefined ? { difficulty: params.difficulty } : {}),
    },
  };
}
