import { configError } from "../core/errors.ts";

export interface DifficultyOptions {
  /** Each family's difficulties, ascending (the world's `FamilyInfo.difficulties`). */
  families: Record<string, readonly number[]>;
  /** Pass rate at or above which a family goes one level up (default 0.8). */
  up?: number;
  /** Pass rate at or below which it goes one level down (default 0.3). */
  down?: number;
  /** Results at the current level needed before any move (default 4). */
  window?: number;
  /** Start level: `min` (default), `max`, or a difficulty each family has (else its nearest). */
  start?: "min" | "max" | number;
  /** Bounds within the families' own levels. */
  min?: number;
  max?: number;
}

/** A level change, as the controller reports it. */
export interface DifficultyChange {
  family: string;
  from: number;
  to: number;
  passRate: number;
}

export interface DifficultyState {
  level: Record<string, number>;
  recent: Record<string, number[]>;
}

/**
 * Per-family difficulty adjustment with hysteresis, bounded. A family moves one level up when its pass
 * rate over the last `window` results at its current level is ≥ `up`, one level down when it is ≤
 * `down`; the gap between the thresholds and the reset of the window after each move (a move needs
 * `window` fresh results at the new level) keep it from oscillating. Levels stay within the family's
 * own difficulties and `[min, max]`. Defaults: up 0.8, down 0.3, window 4, start at the lowest level.
 */
export class DifficultyController {
  readonly up: number;
  readonly down: number;
  readonly window: number;
  readonly #levels: Record<string, number[]>;
  // Maps, not records: a run of 10,000 keys has 2,000 families, looked up every draw and copied every snapshot
  #level = new Map<string, number>();
  #recent = new Map<string, number[]>();
  #revision = 0;

  constructor(opts: DifficultyOptions) {
    this.up = opts.up ?? 0.8;
    this.down = opts.down ?? 0.3;
    this.window = opts.window ?? 4;
    if (!(this.down < this.up))
      throw configError("bad_sampler_option", `difficulty: want down < up, got ${this.down} >= ${this.up}`);
    if (!(this.window >= 1)) throw configError("bad_sampler_option", "difficulty: window must be >= 1");
    this.#levels = {};
    for (const [family, ds] of Object.entries(opts.families)) {
      const levels = [...ds]
        .filter((d) => (opts.min === undefined || d >= opts.min) && (opts.max === undefined || d <= opts.max))
        .sort((a, b) => a - b);
      if (levels.length === 0)
        throw configError("empty_task_space", `difficulty: family ${family} has no level within bounds`);
      this.#levels[family] = levels;
      const start = opts.start ?? "min";
      const level =
        start === "min"
          ? levels[0]
          : start === "max"
            ? levels[levels.length - 1]
            : levels.reduce(
                (best, d) => (Math.abs(d - start) < Math.abs(best - start) ? d : best),
                levels[0],
              );
      this.#level.set(family, level);
      this.#recent.set(family, []);
    }
  }

  /** The family's current difficulty. */
  level(family: string): number {
    const l = this.#level.get(family);
    if (l === undefined) throw configError("unknown_family", `difficulty: no family ${family}`);
    return l;
  }

  /** Counts level changes (and restores): a cache of the levels is current while it is unchanged. */
  get revision(): number {
    return this.#revision;
  }

  levels(): Record<string, number> {
    return Object.fromEntries(this.#level);
  }

  /**
   * Records one result of `family` at `difficulty` (results at another level than the current one are
   * ignored: they say nothing about it) and returns the change it caused, if any.
   */
  record(family: string, difficulty: number, score: number): DifficultyChange | undefined {
    const current = this.level(family);
    if (difficulty !== current) return undefined;
    const recent = this.#recent.get(family) as number[];
    recent.push(score);
    if (recent.length > this.window) recent.shift();
    if (recent.length < this.window) return undefined;
    const passRate = recent.reduce((a, b) => a + b, 0) / recent.length;
    const levels = this.#levels[family];
    const at = levels.indexOf(current);
    let to = current;
    if (passRate >= this.up && at < levels.length - 1) to = levels[at + 1];
    else if (passRate <= this.down && at > 0) to = levels[at - 1];
    if (to === current) return undefined;
    this.#level.set(family, to);
    this.#recent.set(family, []);
    this.#revision++;
    return { family, from: current, to, passRate };
  }

  snapshot(): DifficultyState {
    return {
      level: Object.fromEntries(this.#level),
      recent: recentOf(this.#recent),
    };
  }

  restore(state: DifficultyState): void {
    for (const family of Object.keys(this.#levels)) {
      const level = state?.level?.[family];
      if (!this.#levels[family].includes(level as number) || !Array.isArray(state.recent?.[family])) {
        throw configError("bad_sampler_snapshot", `difficulty snapshot does not fit family ${family}`);
      }
    }
    this.#level = new Map(Object.entries(state.level));
    this.#revision++;
    this.#recent = new Map(Object.entries(state.recent).map(([f, r]) => [f, r.slice()]));
  }
}

/** A copy of each family's recent results, as the snapshot's record. */
function recentOf(recent: ReadonlyMap<string, number[]>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [family, r] of recent) out[family] = r.slice();
  return out;
}
