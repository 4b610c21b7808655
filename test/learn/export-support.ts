/** Shared by the export tests: the formats' JSON Schemas compiled once, and records written as parsed lines. */
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import type { TrialRecord } from "../../src/core/contracts.ts";
import {
  PREFERENCE_OPENAI_SCHEMA,
  PREFERENCE_SCHEMA,
  ROLLOUT_SCHEMA,
  SFT_OPENAI_SCHEMA,
  SFT_TRL_SCHEMA,
} from "../../src/learn/export-schemas.ts";
import { type TrainingExportOptions, writeTrainingLines } from "../../src/learn/export-training.ts";

export const ajv = new Ajv({ strict: false, allErrors: true });

/** A validator per format and dialect. */
export const validators = {
  sft: ajv.compile(SFT_OPENAI_SCHEMA),
  trl: ajv.compile(SFT_TRL_SCHEMA),
  rollouts: ajv.compile(ROLLOUT_SCHEMA),
  preference: ajv.compile(PREFERENCE_SCHEMA),
  "preference-openai": ajv.compile(PREFERENCE_OPENAI_SCHEMA),
};

export type SchemaKind = keyof typeof validators;

export function assertValid(kind: SchemaKind, line: unknown): void {
  const validate = validators[kind];
  assert.ok(validate(line), `${kind}: ${ajv.errorsText(validate.errors)}`);
}

/** The lines `writeTrainingLines` writes for the records, parsed, and its result. */
export async function exported(records: TrialRecord[], options: TrainingExportOptions) {
  const out: unknown[] = [];
  const result = await writeTrainingLines(records, options, (l) => {
    out.push(JSON.parse(l));
  });
  return { out, result };
}
