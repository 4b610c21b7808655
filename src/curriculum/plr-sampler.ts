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

  /** Every key's score, and all keys ranked by it (highest first, ties by key order); kept between draws. */
  #scores: Float64Array | undefined;
  #order: number[] = [];
  /** Keys whose result changed their score since the order was last brought up to date. */
  readonly #changed = new Set<number>();

  protected override onResult(i: number): void {
    this.#changed.add(i);
  }

  protected override loadExtra(): void {
    this.#scores = undefined;
    this.#changed.clear();
  }

  /** `#before(x, y)`: x ranks ahead of y (higher score, or the same score and a lower index). */
  #before(x: number, y: number, s: Float64Array): boolean {
    return s[x] > s[y] || (s[x] === s[y] && x < y);
  }

  /**
   * The ranking of all keys. A result changes only its own key's score, so after the first draw each
   * update moves one key (a binary search and a splice) instead of sorting every key on every draw.
   */
  #ranking(): number[] {
    const n = this.book.size;
    if (!this.#scores || this.#changed.size > n / 8 || !this.#reposition()) {
      const s = new Float64Array(n);
      for (let i = 0; i < n; i++) s[i] = this.score(i);
      this.#scores = s;
      this.#order = Array.from({ length: n }, (_, i) => i).sort((x, y) => s[y] - s[x] || x - y);
      this.#changed.clear();
      return this.#order;
    }
    return this.#order;
  }

  /** Moves each changed key to its new place; false if a key is not where its old score says (rebuild). */
  #reposition(): boolean {
    const s = this.#scores as Float64Array;
    const order = this.#order;
    for (const i of this.#changed) {
      const next = this.score(i);
      if (next === s[i]) continue;
      const at = this.#position(i, order, s);
      if (at < 0) return false;
      order.splice(at, 1);
      s[i] = next;
      order.splice(this.#position(i, order, s), 0, i);
    }
    this.#changed.clear();
    return true;
  }

  /** Where key `i` (at its score in `s`) sits in `order`, or belongs when absent; -1 if absent from a full order. */
  #position(i: number, order: number[], s: Float64Array): number {
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#before(order[mid], i, s)) lo = mid + 1;
      else hi = mid;
    }
    if (order.length === this.book.size && order[lo] !== i) return -1;
    return lo;
  }

  protected weights(mask: Uint8Array): Float64Array {
    const w = new Float64Array(mask.length);
    const order = this.#ranking();
    const inv = 1 / this.temperature;
    const ps = new Float64Array(mask.length);
    let psTotal = 0;
    let rank = 0;
    let underflow = false;
    let eligible = 0;
    for (const i of order) {
      if (!mask[i]) continue;
      eligible++;
      if (underflow) continue;
      rank++;
      const h = (1 / rank) ** inv;
      if (h === 0) {
        underflow = true; // later ranks underflow to 0 too
        continue;
      }
      ps[i] = h;
      psTotal += h;
    }
    if (eligible === 0) return w;
    const c = this.book.clock;
    const last = this.book.lastSampled;
    let pcTotal = 0;
    for (let i = 0; i < mask.length; i++) if (mask[i]) pcTotal += c - last[i];
    const rho = this.staleness;
    for (let i = 0; i < mask.length; i++) {
      if (!mask[i]) continue;
      const pc = pcTotal > 0 ? (c - last[i]) / pcTotal : 1 / eligible;
      w[i] = (1 - rho) * (ps[i] / psTotal) + rho * pc;
    }
    return w;
  }
}
