/**
 * The skill bank: skills with their provenance, the retrieval index they were built for (BM25, or an
 * embedding model with its dimensions and one vector per skill), and how they were induced (the LLM
 * inducer's prompt verbatim). Stored as one versioned JSON file (`saveSkillBank` / `loadSkillBank`).
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { configError, errorMessage } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import { BM25_DEFAULTS } from "./bm25.ts";
import type { Skill } from "./skill.ts";
import { tokenize } from "./tokenize.ts";

export type RetrievalIndex =
  | { kind: "bm25"; model: "bm25@1"; k1: number; b: number /** Vocabulary size. */; dimensions: number }
  | {
      kind: "embedding";
      /** `provider:model` of the embedding model; queries must be embedded by the same one. */
      model: string;
      dimensions: number;
      /** One vector per skill, in the order of `skills`. */
      vectors: number[][];
    };

/** One inducer run that fed the bank. */
export interface InductionRecord {
  inducer: string;
  trials: number;
  skills: number;
  /** The LLM inducer's prompt, verbatim (system and user). */
  prompt?: { system: string; user: string };
  /** Replies or candidate skills the inducer could not use, with why. */
  rejected?: string[];
  usage?: JsonObject;
}

export interface SkillBank {
  schemaVersion: 1;
  name: string;
  skills: Skill[];
  index: RetrievalIndex;
  induction: InductionRecord[];
}

/** The text retrieval indexes for a skill. */
export const skillDocument = (s: Skill): string => `${s.title}. ${s.text}`;

/** A bank with a BM25 index (the default retrieval). */
export function bm25Bank(name: string, skills: Skill[], induction: InductionRecord[]): SkillBank {
  const vocabulary = new Set(skills.flatMap((s) => tokenize(skillDocument(s))));
  return {
    schemaVersion: 1,
    name,
    skills,
    index: { kind: "bm25", model: "bm25@1", ...BM25_DEFAULTS, dimensions: vocabulary.size },
    induction,
  };
}

const provenance = z.object({
  trials: z.array(z.string()),
  variants: z.array(z.string()),
  splits: z.array(z.enum(["regression", "dynamic", "heldout"])),
  worlds: z.array(z.string()),
  families: z.array(z.string()),
  successes: z.number().int().min(0),
  failures: z.number().int().min(0),
});

const skillSchema = z.object({
  id: z.string().min(1),
  title: z.string(),
  text: z.string().min(1),
  inducer: z.string().min(1),
  provenance,
  extra: z.record(z.string(), z.unknown()).optional(),
});

const bankSchema = z.object({
  schemaVersion: z.literal(1),
  name: z.string(),
  skills: z.array(skillSchema),
  index: z.discriminatedUnion("kind", [
    z.object({
      kind: z.literal("bm25"),
      model: z.literal("bm25@1"),
      k1: z.number().positive(),
      b: z.number().min(0).max(1),
      dimensions: z.number().int().min(0),
    }),
    z.object({
      kind: z.literal("embedding"),
      model: z.string().min(1),
      dimensions: z.number().int().min(1),
      vectors: z.array(z.array(z.number())),
    }),
  ]),
  induction: z.array(z.record(z.string(), z.unknown())),
});

/** Validates a bank read from JSON (a config error naming the field when it is not one). */
export function readSkillBank(input: unknown, where = "skill bank"): SkillBank {
  const parsed = bankSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw configError("bad_skill_bank", `${where}: ${issue.path.join(".") || "bank"}: ${issue.message}`);
  }
  const bank = parsed.data as unknown as SkillBank;
  if (bank.index.kind === "embedding") {
    const { vectors, dimensions } = bank.index;
    if (vectors.length !== bank.skills.length || vectors.some((v) => v.length !== dimensions))
      throw configError(
        "bad_skill_bank",
        `${where}: the index holds ${vectors.length} vector(s) for ${bank.skills.length} skill(s), each must have ${dimensions} dimensions`,
      );
  }
  return bank;
}

export function saveSkillBank(file: string, bank: SkillBank): void {
  const out = path.resolve(file);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(bank, null, 2)}\n`);
  fs.renameSync(tmp, out);
}

export function loadSkillBank(file: string): SkillBank {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw configError("bad_skill_bank", `cannot read skill bank ${file}: ${errorMessage(err)}`);
  }
  return readSkillBank(data, file);
}
