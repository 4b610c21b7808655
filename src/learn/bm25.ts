/**
 * Okapi BM25 over a small corpus: idf = ln(1 + (N − n + 0.5) / (n + 0.5)), term score
 * idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · |d| / avgdl)). Defaults k1 = 1.2, b = 0.75.
 */
import { tokenize } from "./tokenize.ts";

export interface Bm25Params {
  k1: number;
  b: number;
}

export const BM25_DEFAULTS: Bm25Params = { k1: 1.2, b: 0.75 };

export interface Scored {
  index: number;
  score: number;
}

export class Bm25Index {
  readonly params: Bm25Params;
  readonly #docs: Map<string, number>[];
  readonly #lengths: number[];
  readonly #df = new Map<string, number>();
  readonly #avgdl: number;

  constructor(documents: readonly string[], params: Partial<Bm25Params> = {}) {
    this.params = { ...BM25_DEFAULTS, ...params };
    this.#docs = documents.map((d) => {
      const tf = new Map<string, number>();
      for (const t of tokenize(d)) tf.set(t, (tf.get(t) ?? 0) + 1);
      return tf;
    });
    this.#lengths = this.#docs.map((tf) => [...tf.values()].reduce((s, x) => s + x, 0));
    for (const tf of this.#docs) for (const t of tf.keys()) this.#df.set(t, (this.#df.get(t) ?? 0) + 1);
    const total = this.#lengths.reduce((s, x) => s + x, 0);
    this.#avgdl = documents.length ? total / documents.length : 0;
  }

  get size(): number {
    return this.#docs.length;
  }

  idf(term: string): number {
    const n = this.#df.get(term) ?? 0;
    const N = this.#docs.length;
    return Math.log(1 + (N - n + 0.5) / (n + 0.5));
  }

  /** Every document's score for the query, best first (ties by index); zero scores left out. */
  search(query: string): Scored[] {
    const terms = [...new Set(tokenize(query))];
    const { k1, b } = this.params;
    const out: Scored[] = [];
    this.#docs.forEach((tf, index) => {
      let score = 0;
      const norm = k1 * (1 - b + (b * this.#lengths[index]) / (this.#avgdl || 1));
      for (const t of terms) {
        const f = tf.get(t);
        if (f) score += (this.idf(t) * f * (k1 + 1)) / (f + norm);
      }
      if (score > 0) out.push({ index, score });
    });
    return out.sort((x, y) => y.score - x.score || x.index - y.index);
  }
}
