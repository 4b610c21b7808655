import type { Command } from "commander";
import { printJson, withStore } from "../context.ts";

/** `proving policies [ID]`: the learners' policies kept in the store (list, or one of them). */
export function registerPolicies(program: Command): void {
  program
    .command("policies")
    .description("list the learners' policies kept in the store, or show one (by hash or unique prefix)")
    .argument("[id]", "a policy's hash or a unique prefix of it (at least 4 characters)")
    .option(
      "--store <path>",
      "SQLite store, or postgres://... (default .proving/proving.db, or $PROVING_STORE)",
    )
    .option("--json", "print JSON (with an id: the whole policy, loadable with --policy FILE)")
    .action(async (id: string | undefined, flags: { store?: string; json?: boolean }) => {
      await withStore(flags.store, "read", async (store) => {
        if (id) {
          const stored = await store.getPolicy(id);
          if (flags.json) printJson(stored.policy);
          else {
            const { policy: _params, ...meta } = stored;
            process.stdout.write(`${JSON.stringify(meta, null, 2)}\n`);
          }
          return;
        }
        const list = await store.listPolicies();
        if (flags.json) return printJson({ policies: list });
        if (!list.length) {
          process.stdout.write("no policies in the store (a learner's run saves one: --agent learner:q)\n");
          return;
        }
        const rows = list.map((p) => {
          const h = p.history as { episodes?: number; updates?: number; passes?: number };
          return [
            p.hash,
            p.learner,
            String(h.updates ?? 0),
            `${h.passes ?? 0}/${h.episodes ?? 0}`,
            p.source,
            p.experimentId ?? "-",
            p.createdAt,
          ];
        });
        const head = ["policy", "learner", "updates", "passed", "source", "experiment", "created"];
        const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
        const line = (r: string[]) =>
          r
            .map((c, i) => c.padEnd(widths[i]))
            .join("  ")
            .trimEnd();
        process.stdout.write(`${[line(head), ...rows.map(line)].join("\n")}\n`);
      });
    });
}
