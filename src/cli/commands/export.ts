import fs from "node:fs";
import type { Command } from "commander";
import { OUTCOMES, type Outcome, type Split, type TrialRecord } from "../../core/contracts.ts";
import { configError } from "../../core/errors.ts";
import type { TrainingFormat } from "../../learn/export-training.ts";
import type { ChatEncoding, SftDialect } from "../../learn/sft-format.ts";
import { splitExcluded, type TrainingFilter } from "../../learn/training-filter.ts";
import type { Store } from "../../store/store.ts";
import { withStore } from "../context.ts";

/** The experiment named, or the newest one in the store. */
export async function experimentOrLatest(store: Store, id: string | undefined): Promise<string> {
  if (id) {
    if (!(await store.getExperiment(id)))
      throw configError("unknown_experiment", `no experiment ${id} in the store`);
    return id;
  }
  const all = await store.listExperiments();
  const latest = all[all.length - 1];
  if (!latest)
    throw configError("no_experiments", "the store holds no experiment yet (run `proving run` first)");
  return latest.id;
}

interface ExportFlags {
  out?: string;
  outcome?: string[];
  family?: string;
  agent?: string;
  store?: string;
  format: string;
  dialect?: string;
  argsAs?: string;
  toolsAs?: string;
  variant?: string;
  split?: string;
  includeHeldout?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The dialect and JSON encoding of the chat formats; bad values are config errors. */
function chatFlags(flags: ExportFlags): { dialect?: SftDialect; encoding: ChatEncoding } {
  if (flags.dialect !== undefined && flags.dialect !== "openai" && flags.dialect !== "trl")
    throw configError("bad_flag", `--dialect ${flags.dialect}: use openai or trl`);
  const style = (flag: string, value: string | undefined) => {
    if (value !== undefined && value !== "string" && value !== "object")
      throw configError("bad_flag", `${flag} ${value}: use string or object`);
    return value;
  };
  const args = style("--args-as", flags.argsAs);
  const tools = style("--tools-as", flags.toolsAs);
  return {
    ...(flags.dialect ? { dialect: flags.dialect } : {}),
    encoding: { ...(args ? { args } : {}), ...(tools ? { tools } : {}) },
  };
}

/** The training filter of the flags; bad values are config errors. */
function trainingFilter(flags: ExportFlags): TrainingFilter {
  const outcomes = flags.outcome?.map((o) => {
    if (!(OUTCOMES as readonly string[]).includes(o))
      throw configError("bad_flag", `--outcome ${o}: not an outcome (${OUTCOMES.join(", ")})`);
    return o as Outcome;
  });
  if (flags.split && !["regression", "dynamic", "heldout"].includes(flags.split))
    throw configError("bad_flag", `--split ${flags.split}: use regression, dynamic or heldout`);
  return {
    ...(outcomes ? { outcomes } : {}),
    ...(flags.variant ? { variant: flags.variant } : {}),
    ...(flags.split ? { split: flags.split as Split } : {}),
    ...(flags.includeHeldout ? { includeHeldout: true } : {}),
    ...(flags.family ? { family: flags.family } : {}),
    ...(flags.agent ? { agent: flags.agent } : {}),
  };
}

export function registerExport(program: Command): void {
  program
    .command("export")
    .description(
      "export an experiment's trajectories as JSONL (one full trial record per line; SFT/RL ready)",
    )
    .argument("[experiment]", "experiment id (default: the newest)")
    .option("--out <file>", "write to a file instead of stdout")
    .option(
      "--format <format>",
      "records (full trial records), sft (chat fine-tuning), rollouts (per-step RL), preference (chosen/rejected pairs)",
      "records",
    )
    .option(
      "--dialect <dialect>",
      "sft and preference: openai (OpenAI fine-tuning / DPO lines) or trl (TRL's formats); default: sft openai, preference trl",
    )
    .option(
      "--args-as <style>",
      "sft and preference: tool-call arguments as JSON text (string) or objects (object: what Qwen2.5/Llama 3.1 chat templates expect); default: openai string, trl object",
    )
    .option(
      "--tools-as <style>",
      "sft and preference: the tools list as objects (default) or one JSON string (a datasets/Arrow column)",
    )
    .option("--outcome <kind>", "only trials with this outcome (repeatable; sft default: passed)", collect)
    .option("--family <name>", "only trials of this family")
    .option("--agent <id>", "only trials of this agent")
    .option("--variant <id>", "training formats: only trials of this variant id (base: the unmodified world)")
    .option("--split <name>", "only trials of this split (regression, dynamic, heldout)")
    .option("--include-heldout", "keep held-out trials too (left out unless named by --split or this flag)")
    .option("--store <path>", "SQLite store")
    .action(async (id: string | undefined, flags: ExportFlags) => {
      const { exportTraining, TRAINING_FORMATS } = await import("../../learn/export-training.ts");
      if (!(["records", ...TRAINING_FORMATS] as string[]).includes(flags.format))
        throw configError(
          "bad_flag",
          `--format ${flags.format}: use records, ${TRAINING_FORMATS.join(", ")}`,
        );
      const chat = chatFlags(flags);
      if (flags.format === "records" && (flags.outcome?.length ?? 0) > 1)
        throw configError("bad_flag", "--format records takes one --outcome");
      const filter = trainingFilter(flags);
      await withStore(flags.store, "read", async (store) => {
        const experimentId = await experimentOrLatest(store, id);
        const out = flags.out ? fs.createWriteStream(flags.out) : process.stdout;
        let failed: unknown;
        out.on("error", (err) => {
          failed = err;
        });
        const write = (line: string): Promise<void> | undefined => {
          if (failed) throw failed;
          return out.write(`${line}\n`) ? undefined : new Promise((resolve) => out.once("drain", resolve));
        };
        let n: number;
        let note = "";
        if (flags.format !== "records") {
          const result = await exportTraining(
            store,
            experimentId,
            { format: flags.format as TrainingFormat, ...chat, filter },
            write,
          );
          n = result.lines;
          const left = Object.entries(result.excluded).filter(([, count]) => count > 0);
          if (result.pairsWithoutDecision > 0)
            left.push(["pair(s) without a decision", result.pairsWithoutDecision]);
          note = left.length
            ? ` (left out: ${left.map(([why, count]) => `${count} ${why}`).join(", ")})`
            : "";
        } else {
          // full records: every outcome, but held-out trials only when asked (and only the split named)
          const left = { heldout: 0, filter: 0 };
          n = 0;
          await store.exportJsonl(
            experimentId,
            (line) => {
              const why = splitExcluded(JSON.parse(line) as TrialRecord, filter);
              if (why) {
                left[why]++;
                return undefined;
              }
              n++;
              return write(line);
            },
            {
              ...(flags.outcome?.[0] ? { outcome: flags.outcome[0] as Outcome } : {}),
              ...(flags.family ? { family: flags.family } : {}),
              ...(flags.agent ? { agent: flags.agent } : {}),
            },
          );
          const notes = [
            ...(left.heldout ? [`${left.heldout} heldout`] : []),
            ...(left.filter ? [`${left.filter} filter`] : []),
          ];
          note = notes.length ? ` (left out: ${notes.join(", ")})` : "";
        }
        if (flags.out) {
          await new Promise<void>((resolve) => (out as fs.WriteStream).end(resolve));
          process.stderr.write(
            `wrote ${n} ${flags.format} line(s) of ${experimentId} to ${flags.out}${note}\n`,
          );
        } else if (note) process.stderr.write(`${n} ${flags.format} line(s)${note}\n`);
      });
    });
}
