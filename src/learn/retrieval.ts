/**
 * Retrieval of skills for a task: BM25 over the skills' text by default; for a bank built with an
 * embedding model, cosine similarity with the query embedded by the same model. A query embedded by
 * another model (or with other dimensions) is refused with `embedding_model_mismatch`: switching
 * embedding providers means rebuilding the bank.
 */
import { configError } from "../core/errors.ts";
import { Bm25Index } from "./bm25.ts";
import type { Embedder } from "./embedder.ts";
import type { Skill } from "./skill.ts";
import { type SkillBank, skillDocument } from "./skill-bank.ts";

export interface RetrievedSkill {
  skill: Skill;
  score: number;
}

export interface RetrieveOptions {
  /** How many skills (default 3). */
  k?: number;
  /** Required for a bank with an embedding index; must be the model the bank was built with. */
  embedder?: Embedder;
}

/** Builds the embedding index of a bank's skills (every skill embedded by `embedder`). */
export async function withEmbeddingIndex(bank: SkillBank, embedder: Embedder): Promise<SkillBank> {
  const vectors = await embedder.embed(bank.skills.map(skillDocument));
  const dimensions = vectors[0]?.length ?? embedder.dimensions ?? 0;
  if (dimensions < 1) throw configError("bad_skill_bank", "an embedding index needs at least one skill");
  return { ...bank, index: { kind: "embedding", model: embedder.model, dimensions, vectors } };
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** Ranks the bank's skills against a query vector that `model` produced. */
export function retrieveByVector(
  bank: SkillBank,
  vector: readonly number[],
  model: string,
  k = 3,
): RetrievedSkill[] {
  const index = bank.index;
  if (index.kind !== "embedding")
    throw configError("embedding_model_mismatch", `skill bank ${bank.name} has a BM25 index, not embeddings`);
  if (model !== index.model || vector.length !== index.dimensions) {
    throw configError(
      "embedding_model_mismatch",
      `skill bank ${bank.name} was built with embedding model ${index.model} (${index.dimensions} dimensions); ` +
        `the query was embedded by ${model} (${vector.length} dimensions). Rebuild the bank with ${model} to query it.`,
    );
  }
  return index.vectors
    .map((v, i) => ({ skill: bank.skills[i], score: cosine(v, vector) }))
    .filter((r) => r.score > 0)
    .sort((x, y) => y.score - x.score || x.skill.id.localeCompare(y.skill.id))
    .slice(0, k);
}

/** The top-k skills for a query text. */
export async function retrieveSkills(
  bank: SkillBank,
  query: string,
  options: RetrieveOptions = {},
): Promise<RetrievedSkill[]> {
  const k = options.k ?? 3;
  if (bank.index.kind === "embedding") {
    const embedder = options.embedder;
    if (!embedder) {
      throw configError(
        "embedding_model_mismatch",
        `skill bank ${bank.name} was built with embedding model ${bank.index.model}: give an embedder of that model`,
      );
    }
    if (embedder.model !== bank.index.model) {
      throw configError(
        "embedding_model_mismatch",
        `skill bank ${bank.name} was built with embedding model ${bank.index.model} (${bank.index.dimensions} dimensions); ` +
          `queries embedded by ${embedder.model} cannot search it. Rebuild the bank with ${embedder.model} to query it.`,
      );
    }
    const [vector] = await embedder.embed([query]);
    return retrieveByVector(bank, vector, embedder.model, k);
  }
  return bm25Retrieve(bank, query, k);
}

/** BM25 retrieval (synchronous; what the offline learner uses). */
export function bm25Retrieve(bank: SkillBank, query: string, k = 3): RetrievedSkill[] {
  const index = bank.index.kind === "bm25" ? bank.index : undefined;
  const bm25 = new Bm25Index(bank.skills.map(skillDocument), index ? { k1: index.k1, b: index.b } : {});
  return bm25
    .search(query)
    .slice(0, k)
    .map((s) => ({ skill: bank.skills[s.index], score: s.score }));
}
