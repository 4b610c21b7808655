import type { Command } from "commander";
import { configError } from "../../core/errors.ts";
import type { ComparedExperiment, ExperimentComparison } from "../../report/compare.ts";
import type { PairedComparison } from "../../stats/compare-paired.ts";
import type { Store } from "../../store/store.ts";
import { printJson, withStore } from "../context.ts";

interface CompareFlags {
  store?: string;
  agentA?: string;
  agentB?: string;
  force?: boolean;
  json?: boolean;
}

async function load(store: Store, id: string): Promise<ComparedExperiment> {
  if (!(await store.getExperiment(id)))
    throw configError("unknown_experiment", `no experiment ${id} in the store`);
  const manifest = await store.getManifest(id);
  if (manifest.length === 0) throw configError("empty_experiment", `experiment ${id} has no planned trials`);
  return { id, manifest, trials: await store.listTrials(id) };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pts = (x: number) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}`;
const pval = (p: number) => (p >= 0.001 ? p.toFixed(3) : p.toExponential(1));

function row(name: string, c: PairedComparison): string[] {
  const rateA = (c.both_pass + c.a_only) / c.pairs;
  const rateB = (c.both_pass + c.b_only) / c.pairs;
  return [
    name,
    String(c.pairs),
    String(c.both_pass),
    String(c.a_only),
    String(c.b_only),
    String(c.neither),
    pct(rateA),
    pct(rateB),
    pts(c.difference.estimate),
    `[${pts(c.difference.ci[0])}, ${pts(c.difference.ci[1])}]`,
    pval(c.mcnemar.p),
  ];
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  "))
    .join("\n");
}

export function renderComparison(idA: string, idB: string, c: ExperimentComparison): string {
  const lines: string[] = [];
  const agents = c.agents.map((x) => (x.a === x.b ? x.a : `${x.a} (A) vs ${x.b} (B)`)).join("; ");
  lines.push(`Paired comparison  A = ${idA}  B = ${idB}  agents: ${agents}`);
  lines.push(
    "Pairs share world, variant, family, difficulty, seed and repeat. Difference = pass rate A − pass rate B, in points, 95% CI (Newcombe); p = exact McNemar.",
  );
  lines.push("");
  const header = ["", "pairs", "both", "A only", "B only", "neither", "A", "B", "A−B", "95% CI", "p"];
  const rows = [header, row("all", c)];
  for (const [family, f] of Object.entries(c.by_family)) rows.push(row(`  ${family}`, f));
  if (c.agents.length > 1) for (const x of c.agents) rows.push(row(`${x.a} vs ${x.b}`, x));
  lines.push(table(rows));
  return lines.join("\n");
}

export function registerCompare(program: Command): void {
  program
    .command("compare")
    .description("paired comparison of two experiments on the same tasks, seeds and budgets (A − B)")
    .argument("<expA>", "experiment id A")
    .argument("<expB>", "experiment id B")
    .option("--store <path>", "SQLite store (default .proving/proving.db, or $PROVING_STORE)")
    .option("--agent-a <id>", "agent of A to compare (default: agents in both, or the only one)")
    .option("--agent-b <id>", "agent of B to compare")
    .option("--force", "compare what pairs up even when tasks, seeds or budgets differ (warns loudly)")
    .option(
      "--json",
      "print {pairs, both_pass, a_only, b_only, neither, difference: {estimate, ci}, mcnemar: {b, c, p}, by_family}",
    )
    .action(async (idA: string, idB: string, flags: CompareFlags) => {
      const { compareExperiments, comparisonJson } = await import("../../report/compare.ts");
      const [a, b] = await withStore(flags.store, "read", async (store) => [
        await load(store, idA),
        await load(store, idB),
      ]);
      const c = compareExperiments(a, b, {
        ...(flags.agentA !== undefined ? { agentA: flags.agentA } : {}),
        ...(flags.agentB !== undefined ? { agentB: flags.agentB } : {}),
        ...(flags.force ? { force: true } : {}),
      });
      if (c.problems.length > 0) {
        const bar = "!".repeat(78);
        process.stderr.write(
          `${bar}\nWARNING: ${idA} and ${idB} are NOT comparable pair by pair (--force given):\n  - ${c.problems.join("\n  - ")}\nOnly the trials that pair up are compared; the numbers below do not compare the experiments as planned.\n${bar}\n`,
        );
      }
      for (const w of c.warnings) process.stderr.write(`proving: warning: ${w}\n`);
      if (flags.json) printJson(comparisonJson(c));
      else process.stdout.write(`${renderComparison(idA, idB, c)}\n`);
    });
}
