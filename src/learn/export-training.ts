/**
 * Writes an experiment's trials as training data in one format (`sft`, `rollouts`, `preference`),
 * after the training filter (no infrastructure failures; no held-out split unless named). Returns
 * how many lines were written, why the other trials were left out, and how many preference pairs
 * never parted at a decision.
 */
import type { Outcome, TrialRecord } from "../core/contracts.ts";
import type { LineWriter, Store } from "../store/store.ts";
import { preferenceLine, preferencePairs } from "./preference-format.ts";
import { rolloutLine } from "./rollout-format.ts";
import { type ChatEncoding, type SftDialect, sftLine } from "./sft-format.ts";
import { type Exclusion, excludedBecause, type TrainingFilter } from "./training-filter.ts";

export type TrainingFormat = "sft" | "rollouts" | "preference";
export const TRAINING_FORMATS: readonly TrainingFormat[] = ["sft", "rollouts", "preference"];

export interface TrainingExportOptions {
  format: TrainingFormat;
  /** SFT and preference: the chat dialect (default: SFT `openai`, preference `trl`). */
  dialect?: SftDialect;
  /** SFT and preference: tool-call arguments and the tools list as JSON text or as objects. */
  encoding?: ChatEncoding;
  /** SFT defaults to passed trials only; the other formats to every agent outcome. */
  filter?: TrainingFilter;
}

export interface TrainingExportResult {
  lines: number;
  /** Trials that passed the filter. */
  trials: number;
  excluded: Record<Exclusion, number>;
  /** Preference only: pairs (a passing and a failing trial of one task) that never parted at an assistant turn. */
  pairsWithoutDecision: number;
}

/** The default outcome filter per format: SFT imitates successes only. */
function withDefaults(options: TrainingExportOptions): TrainingFilter {
  const filter = options.filter ?? {};
  if (options.format === "sft" && !filter.outcomes) return { ...filter, outcomes: ["passed"] as Outcome[] };
  return filter;
}

/** A sink that converts records as they come (SFT and rollouts stream; preference pairs at `finish`). */
export function trainingSink(options: TrainingExportOptions, write: LineWriter) {
  const filter = withDefaults(options);
  const result: TrainingExportResult = {
    lines: 0,
    trials: 0,
    excluded: { infrastructure: 0, heldout: 0, filter: 0, empty: 0 },
    pairsWithoutDecision: 0,
  };
  const kept: TrialRecord[] = [];
  return {
    async add(record: TrialRecord): Promise<void> {
      const why = excludedBecause(record, filter);
      if (why) {
        result.excluded[why]++;
        return;
      }
      result.trials++;
      if (options.format === "preference") {
        kept.push(record);
        return;
      }
      const line =
        options.format === "sft"
          ? sftLine(record, options.dialect ?? "openai", options.encoding)
          : rolloutLine(record);
      await write(JSON.stringify(line));
      result.lines++;
    },
    async finish(): Promise<TrainingExportResult> {
      if (options.format === "preference") {
        for (const pair of preferencePairs(kept)) {
          const line = preferenceLine(pair, options.dialect ?? "trl", options.encoding);
          if (!line) {
            result.pairsWithoutDecision++;
            continue;
          }
          await write(JSON.stringify(line));
          result.lines++;
        }
      }
      return result;
    },
  };
}

/** Converts records already in memory (tests, the learn loop); `write` gets one JSON text per line. */
export async function writeTrainingLines(
  records: Iterable<TrialRecord>,
  options: TrainingExportOptions,
  write: LineWriter,
): Promise<TrainingExportResult> {
  const sink = trainingSink(options, write);
  for (const record of records) await sink.add(record);
  return sink.finish();
}

/** Reads an experiment's records a page at a time from the store and writes them in the format. */
export async function exportTraining(
  store: Store,
  experimentId: string,
  options: TrainingExportOptions,
  write: LineWriter,
): Promise<TrainingExportResult> {
  const sink = trainingSink(options, write);
  const filter = options.filter ?? {};
  await store.exportJsonl(experimentId, (line) => sink.add(JSON.parse(line) as TrialRecord), {
    ...(filter.family ? { family: filter.family } : {}),
    ...(filter.agent ? { agent: filter.agent } : {}),
  });
  return sink.finish();
}
