import fs from "node:fs";
import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
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

export function registerExport(program: Command): void {
  program
    .command("export")
    .description(
      "export an experiment's trajectories as JSONL (one full trial record per line; SFT/RL ready)",
    )
    .argument("[experiment]", "experiment id (default: the newest)")
    .option("--out <file>", "write to a file instead of stdout")
    .option("--outcome <kind>", "only trials with this outcome")
    .option("--family <name>", "only trials of this family")
    .option("--agent <id>", "only trials of this agent")
    .option("--store <path>", "SQLite store")
    .action(
      async (
        id: string | undefined,
        flags: { out?: string; outcome?: string; family?: string; agent?: string; store?: string },
      ) => {
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
          const n = await store.exportJsonl(experimentId, write, {
            ...(flags.outcome ? { outcome: flags.outcome as never } : {}),
            ...(flags.family ? { family: flags.family } : {}),
            ...(flags.agent ? { agent: flags.agent } : {}),
          });
          if (flags.out) {
            await new Promise<void>((resolve) => (out as fs.WriteStream).end(resolve));
            process.stderr.write(`wrote ${n} trial(s) of ${experimentId} to ${flags.out}\n`);
          }
        });
      },
    );
}
