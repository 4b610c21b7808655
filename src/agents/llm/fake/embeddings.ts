/**
 * The fake provider's embeddings endpoint (OpenAI `POST /v1/embeddings`): a deterministic hashed
 * bag-of-words vector per input, unit length, `dimensions` long (default 64). The hash is seeded by
 * the model name, so two fake embedding models give unrelated vectors, as two real ones would.
 */
import { createHash } from "node:crypto";

export const FAKE_EMBEDDING_DIMENSIONS = 64;

function bucket(model: string, word: string, dimensions: number): { index: number; sign: number } {
  const digest = createHash("sha256").update(`${model}\u0000${word}`).digest();
  return { index: digest.readUInt32BE(0) % dimensions, sign: digest[4] & 1 ? 1 : -1 };
}

/** One input's vector. */
export function fakeEmbedding(model: string, text: string, dimensions = FAKE_EMBEDDING_DIMENSIONS): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9_]+/g) ?? []) {
    const { index, sign } = bucket(model, word, dimensions);
    v[index] += sign;
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

/** The response body for a request body; throws a message for a 400. */
export function fakeEmbeddingsResponse(body: Record<string, unknown>): Record<string, unknown> {
  if (typeof body.model !== "string") throw new Error("`model` is required");
  const input = typeof body.input === "string" ? [body.input] : body.input;
  if (!Array.isArray(input) || !input.every((x) => typeof x === "string"))
    throw new Error("`input` must be a string or an array of strings");
  const dimensions = body.dimensions === undefined ? FAKE_EMBEDDING_DIMENSIONS : Number(body.dimensions);
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 4096)
    throw new Error("`dimensions` must be an integer in 1..4096");
  const tokens = input.reduce((n, text) => n + Math.max(1, Math.ceil(text.length / 4)), 0);
  return {
    object: "list",
    data: input.map((text, index) => ({
      object: "embedding",
      index,
      embedding: fakeEmbedding(body.model as string, text, dimensions),
    })),
    model: body.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
