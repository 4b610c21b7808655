import type { Command } from "commander";
import { printJson, withStore } from "../context.ts";

/** `proving status NAME`: an experiment's planned, recorded and in-flight trials, and per worker. */
export function registerStatus(program: Command): void {
  program
    .command("status <experiment>")
    .description("planned, recorded and in-flight trials of an experiment, and what each queue worker did")
    .option("--store <path>", "store: a SQLite file or postgres://... (default $PROVING_STORE)")
    .option("--json", "print JSON")
    .action(async (experimentId: string, flags: { store?: string; json?: boolean }) => {
      const { queuedExperimentStatus } = await import("../../queue/experiment-status.ts");
      const s = await withStore(flags.store, "read", (store) => queuedExperimentStatus(store, experimentId));
      if (flags.json) return printJson(s);
      const lines = [
        `${s.experimentId}: ${s.status}`,
        `  planned ${s.planned}, recorded ${s.recorded}, in flight ${s.inFlight}, waiting ${s.waiting}, abandoned attempts ${s.abandoned}`,
        `  outcomes: ${
          Object.entries(s.outcomes)
            .map(([k, v]) => `${k} ${v}`)
            .join(", ") || "none yet"
        }`,
      ];
      if (s.lease) lines.push(`  live: held by ${s.lease.holder} (lease until ${s.lease.expiresAt})`);
      if (s.workers.length) {
        lines.push("  worker                             recorded  in flight  failed  duplicate  abandoned");
        for (const w of s.workers) {
          lines.push(
            `  ${w.worker.padEnd(34)} ${String(w.recorded).padStart(8)}  ${String(w.inFlight).padStart(9)}  ${String(w.failed).padStart(6)}  ${String(w.duplicate).padStart(9)}  ${String(w.abandoned).padStart(9)}`,
          );
        }
      }
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}
