import { configError } from "../core/errors.ts";
import { BaseSampler, type BaseSamplerOptions } from "./base-sampler.ts";

export interface PlrOptions extends BaseSamplerOptions {
  /** Rank temperature β (default 0.1): P_S ∝ (1/rank)^(1/β). */
  temperature?: number;
  /** Staleness mix ρ (default 0.1). */
  staleness?: number;
  /** Beta prior (a, b) on a key's pass rate (default [1, 1]: an unseen key scores 0.5). */
  prior?: [number, number];
  /** Weight λ of the process penalty in the score (default 0.2). */
  processWeight?: number;
}

/**
 * Prioritized level replay (Jiang, Grefenstette & Rocktäschel 2021, "Prioritized Level Replay").
 * Score S_i = (1 − p̂_i) + λ·q_i: the regret proxy of a success/failure task (the gap between the best
 * return, 1, and the key's estimated return p̂ = (Σx + a)/(n + a + b)), plus the key's process penalty
 * q ∈ [0, 1] (0 while unknown). Rank transform with temperature β: P_S(i) = h_i^(1/β) / Σ_j h_j^(1/β),
 * h_i = 1/rank(S_i) (rank 1 = highest score, ties by key order). Staleness: P_C(i) = (c − C_i) / Σ_j (c − C_j),
 * c the number of draws so far, C_i the draw at which i was last drawn (0 if never; uniform when all are
 * 0). P = (1 − ρ)·P_S + ρ·P_C. Defaults β = 0.1, ρ = 0.1 (the paper's), prior (1, 1), λ = 0.2.
 * The default strategy: it follows the agent's failures and the staleness term keeps coverage.
 */
export class PlrSampler extends BaseSampler {
  readonly strategy = "plr";
  readonly temperature: number;
  readonly staleness: number;
  readonly prior: [number, number];
  readonly processWeight: number;

  constructor(opts: PlrOptions) {
    super(opts);
    this.temperature = opts.temperature ?? 0.1;
    this.staleness = opts.staleness ?? 0.1;
    this.prior = opts.prior ?? [1, 1];
    this.processWeight = opts.processWeight ?? 0.2;
    if (!(this.temperature > 0)) throw configError("bad_sampler_option", "temperature must be > 0");
    if (!(this.staleness >= 0 && this.staleness <= 1))
      throw configError("bad_sampler_option", "staleness must be in [0, 1]");
  }

  score(i: number): number {
    const [a, b] = this.prior;
    return 1 - this.book.posterior(i, a, b) + this.processWeight * (this.book.process[i] ?? 0);
  }

  protected weights(mask: Uint8Array): Float64Array {
    const eligible: number[] = [];
    for (let i = 0; i < mask.length; i++) if (mask[i]) eligible.push(i);
    const w = new Float64Array(mask.length);
    if (eligible.length === 0) return w;
    const s = new Float64Array(mask.length);
    for (const i of eligible) s[i] = this.score(i);
    const order = eligible.slice().sort((x, y) => s[y] - s[x] || x - y);
    const inv = 1 / this.temperature;
    const ps = new Float64Array(mask.length);
    let psTotal = 0;
    for (let r = 0; r < order.length; r++) {
      const h = (1 / (r + 1)) ** inv;
      if (h === 0) break; // later ranks underflow to 0 too
      ps[order[r]] = h;
      psTotal += h;
    }
    const c = this.book.clock;
    let pcTotal = 0;
    for (const i of eligible) pcTotal += c - this.book.lastSampled[i];
    const rho = this.staleness;
    for (const i of eligible) {
      const pc = pcTotal > 0 ? (c - this.book.lastSampled[i]) / pcTotal : 1 / eligible.length;
      w[i] = (1 - rho) * (ps[i] / psTotal) + rho * pc;
    }
    return w;
  }
}
