/**
 * A linear softmax policy over admissible actions trained by REINFORCE with a baseline
 * (`learner.pg@1`). φ(s, a) are hashed crosses (FNV-1a, `dim` buckets) of each observation feature
 * (and a bias) with the action key, its tool, and each of its argument features; π(a|s) ∝ exp(θ·φ).
 * Sampled while training (a share `eps` of choices uniform, to keep exploring), greedy (argmax,
 * ties: the first) when frozen. After an episode with reward R (1 passed, 0 not), each step t moves
 * θ by lr/|φ| · (γ^(T−1−t) R − b) · (φ(s,a) − E_π φ(s,·)), plus an optional entropy bonus
 * (`entropy`, default 0); the baseline b is a running mean of R (rate `beta`).
 */
import type { JsonObject } from "../core/json.ts";
import type { Rng } from "../core/rng.ts";
import type { LearnerCore, LearnerStep } from "./learner-core.ts";

export interface PgConfig {
  /** Step size (default 0.2). */
  lr: number;
  /** Discount per step (default 0.97). */
  gamma: number;
  /** Rate of the running-mean baseline (default 0.05). */
  beta: number;
  /** Hash buckets of the features (default 65536). */
  dim: number;
  /** While training, the share of choices made uniformly among the actions, to keep exploring (default 0.1). */
  eps: number;
  /** Weight of the entropy bonus in each update (default 0). */
  entropy?: number;
}

export const PG_DEFAULTS: PgConfig = { lr: 1, gamma: 0.97, beta: 0.05, dim: 65536, eps: 0.1 };

/** FNV-1a, 32 bits: fast and stable across runs (the features' hash, not a content hash). */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The action key's parts: the whole key, its tool, each `arg=feature`. */
function actionParts(action: string): string[] {
  const open = action.indexOf("(");
  const tool = open < 0 ? action : action.slice(0, open);
  const inner = open < 0 ? "" : action.slice(open + 1, -1);
  const args = inner ? splitArgs(inner).map((a) => `${tool}.${a}`) : [];
  return [action, `tool:${tool}`, ...args];
}

/** Splits `a=x,b=[y,z]` at the top-level commas. */
function splitArgs(inner: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === "[") depth++;
    else if (c === "]") depth--;
    else if (c === "," && depth === 0) {
      out.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  out.push(inner.slice(start));
  return out;
}

export class LinearSoftmax implements LearnerCore {
  constructor(
    readonly config: PgConfig,
    /** Nonzero weights by bucket. */
    private readonly weights: Record<string, number> = {},
    private baseline = 0,
  ) {}

  private features(state: readonly string[], action: string): number[] {
    const parts = actionParts(action);
    const out: number[] = [];
    for (const f of ["bias", ...state])
      for (const p of parts) out.push(fnv1a(`${f}\u00d7${p}`) % this.config.dim);
    return out;
  }

  private probabilities(
    state: readonly string[],
    options: readonly string[],
  ): { p: number[]; phi: number[][] } {
    const phi = options.map((a) => this.features(state, a));
    const logits = phi.map((f) => f.reduce((sum, i) => sum + (this.weights[i] ?? 0), 0));
    const max = Math.max(...logits);
    const exp = logits.map((l) => Math.exp(l - max));
    const total = exp.reduce((a, b) => a + b, 0);
    return { p: exp.map((e) => e / total), phi };
  }

  choose(state: readonly string[], options: readonly string[], rng: Rng, greedy: boolean): number {
    const { p } = this.probabilities(state, options);
    if (greedy) {
      let best = 0;
      for (let i = 1; i < p.length; i++) if (p[i] > p[best] + 1e-12) best = i;
      return best;
    }
    if (rng.next() < this.config.eps) return rng.int(0, options.length - 1);
    let u = rng.next();
    for (let i = 0; i < p.length; i++) {
      u -= p[i];
      if (u < 0) return i;
    }
    return p.length - 1;
  }

  learn(steps: readonly LearnerStep[], reward: number): void {
    const { lr, gamma, beta } = this.config;
    const entropyBonus = this.config.entropy ?? 0;
    const T = steps.length;
    steps.forEach((step, t) => {
      const advantage = gamma ** (T - 1 - t) * reward - this.baseline;
      const { p, phi } = this.probabilities(step.state, step.options);
      const chosen = step.options.indexOf(step.action);
      const grad = new Map<number, number>();
      const add = (i: number, v: number) => grad.set(i, (grad.get(i) ?? 0) + v);
      if (chosen >= 0) for (const i of phi[chosen]) add(i, advantage);
      // the entropy bonus keeps the policy from settling early: d H / d logit_k = −p_k (log p_k + H)
      const entropy = -p.reduce((h, q) => h + (q > 0 ? q * Math.log(q) : 0), 0);
      phi.forEach((f, k) => {
        const g = -p[k] * advantage - entropyBonus * p[k] * (Math.log(p[k] || 1e-300) + entropy);
        for (const i of f) add(i, g);
      });
      // the step is shared among the features an action has (about |state| × |parts| of them)
      const scale = lr / Math.max(1, phi[0]?.length ?? 1);
      for (const [i, g] of grad) {
        const w = (this.weights[i] ?? 0) + scale * g;
        if (Math.abs(w) < 1e-9) delete this.weights[i];
        else this.weights[i] = w;
      }
    });
    this.baseline += beta * (reward - this.baseline);
  }

  params(): JsonObject {
    return { weights: this.weights, baseline: this.baseline };
  }
}
