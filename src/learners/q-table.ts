/**
 * Tabular Q-learning over admissible actions (`learner.q@1`): a state is the set of observation
 * features (hashed to a key), an action its action key. ε-greedy while training (ties broken at
 * random), greedy when frozen (ties: the first in the list). Learns once per episode, from its last
 * step back to its first (one sweep carries the verdict back along the episode), with
 * Q(s,a) ← Q(s,a) + α (G − Q(s,a)), G the λ-return: the reward at the last step, and
 * γ ((1 − λ) max Q(s′, ·) + λ G′) before it (max over the next step's admissible actions), so an
 * episode that ran out of steps pulls its loops down instead of leaving them optimistic.
 */
import { hashString } from "../core/hash.ts";
import type { JsonObject } from "../core/json.ts";
import type { Rng } from "../core/rng.ts";
import type { LearnerCore, LearnerStep } from "./learner-core.ts";

export interface QConfig {
  /** Learning rate (default 0.5). */
  alpha: number;
  /** Discount per step (default 0.95). */
  gamma: number;
  /** Weight of the episode's own return against the bootstrapped value (Watkins-style λ-return; default 0.8). */
  lambda: number;
  /** Exploration rate while training (default 0.1). */
  eps: number;
  /** Value of an action never tried in a state (default 1: optimistic, so untried actions get tried). */
  q0: number;
  /** Whether a state includes which tools have answered ok so far (`did:` features; default false). */
  memory: boolean;
}

export const Q_DEFAULTS: QConfig = {
  alpha: 0.3,
  gamma: 0.95,
  lambda: 0.95,
  eps: 0.1,
  q0: 0.5,
  memory: false,
};

export class QTable implements LearnerCore {
  constructor(
    readonly config: QConfig,
    /** Q values by state key, then action key. */
    private readonly table: Record<string, Record<string, number>> = {},
  ) {}

  /** A state's key: its features (without `did:` ones unless `memory`), hashed. */
  stateKey(state: readonly string[]): string {
    const kept = this.config.memory ? state : state.filter((f) => !f.startsWith("did:"));
    return hashString(kept.join("|"), 12);
  }

  private q(state: string, action: string): number {
    return this.table[state]?.[action] ?? this.config.q0;
  }

  choose(state: readonly string[], options: readonly string[], rng: Rng, greedy: boolean): number {
    if (!greedy && rng.next() < this.config.eps) return rng.int(0, options.length - 1);
    const key = this.stateKey(state);
    const row = this.table[key];
    // frozen, an action never tried here is not preferred for its optimistic start value
    const known = greedy && row !== undefined && options.some((a) => row[a] !== undefined);
    let best = Number.NEGATIVE_INFINITY;
    let ties: number[] = [];
    options.forEach((a, i) => {
      const v = known && row[a] === undefined ? Number.NEGATIVE_INFINITY : this.q(key, a);
      if (v > best + 1e-12) {
        best = v;
        ties = [i];
      } else if (Math.abs(v - best) <= 1e-12) ties.push(i);
    });
    return greedy || ties.length === 1 ? ties[0] : ties[rng.int(0, ties.length - 1)];
  }

  learn(steps: readonly LearnerStep[], reward: number): void {
    const { alpha, gamma, lambda } = this.config;
    // the λ-return, from the last step back: G_T-1 = R; G_t = γ((1−λ) max Q(s_t+1, ·) + λ G_t+1)
    let ret = reward;
    for (let t = steps.length - 1; t >= 0; t--) {
      const step = steps[t];
      let target = reward;
      if (t < steps.length - 1) {
        const next = steps[t + 1];
        const nextKey = this.stateKey(next.state);
        const best = Math.max(...next.options.map((a) => this.q(nextKey, a)));
        target = gamma * ((1 - lambda) * best + lambda * ret);
      }
      ret = target;
      const key = this.stateKey(step.state);
      const row = this.table[key] ?? {};
      this.table[key] = row;
      const old = row[step.action] ?? this.config.q0;
      row[step.action] = old + alpha * (target - old);
    }
  }

  params(): JsonObject {
    return { table: this.table };
  }

  /** States the table knows. */
  get size(): number {
    return Object.keys(this.table).length;
  }
}
