/**
 * `npm run bench [-- --only NAME[,NAME]] [--json] [--quick]`: runs every benchmark and prints each
 * figure with its ratio against the baseline measured in the same run and the target it is held to.
 * Benchmarks that other work adds (`bench/ws-server.ts`, `bench/llm-overhead.ts`) are imported when
 * present and skipped with a note when not.
 */
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { adaptLlmOverhead, adaptWsServer } from "./adapters.ts";
import { type BenchOptions, type BenchReport, type Figure, formatNumber, formatRatio } from "./figures.ts";
import { type MachineInfo, machine } from "./measure.ts";

type BenchFn = (opts: BenchOptions) => Promise<BenchReport>;

/** How long `npm run bench` may take on the project's machine, and with `--quick`. */
const FULL_LIMIT_S = 600;
const QUICK_LIMIT_S = 180;

interface Entry {
  name: string;
  /** Module path relative to this file. */
  file: string;
  /** Export to call; when absent, the default export or the first exported function. */
  exportName?: string;
  /** Skipped with a note when the file does not exist (benchmarks owned by other work). */
  optional?: boolean;
  /** Runs a module whose result is not a BenchReport and turns it into one. */
  adapt?: (mod: Record<string, unknown>, opts: BenchOptions) => Promise<BenchReport | undefined>;
}

export const BENCHMARKS: Entry[] = [
  { name: "world-steps", file: "./world-steps.ts", exportName: "benchWorldSteps" },
  { name: "episodes", file: "./episodes.ts", exportName: "benchEpisodes" },
  { name: "module-agent", file: "./episodes.ts", exportName: "benchModuleAgent" },
  { name: "concurrency", file: "./concurrency.ts", exportName: "benchConcurrency" },
  { name: "store", file: "./store.ts", exportName: "benchStore" },
  { name: "queue", file: "./queue.ts", exportName: "benchQueue" },
  { name: "curriculum", file: "./curriculum.ts", exportName: "benchCurriculum" },
  { name: "ws-server", file: "./ws-server.ts", optional: true, adapt: adaptWsServer },
  { name: "ws-sessions", file: "./ws-sessions.ts", exportName: "benchWsSessions" },
  { name: "batched-steps", file: "./batched-steps.ts", exportName: "benchBatchedSteps" },
  { name: "llm-overhead", file: "./llm-overhead.ts", optional: true, adapt: adaptLlmOverhead },
];

interface Args {
  only?: Set<string>;
  json: boolean;
  quick: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { json: false, quick: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") args.json = true;
    else if (a === "--quick") args.quick = true;
    else if (a === "--only" || a.startsWith("--only=")) {
      const value = a === "--only" ? argv[++i] : a.slice("--only=".length);
      if (!value) throw new Error("--only needs a benchmark name");
      args.only ??= new Set();
      for (const name of value.split(",")) if (name) args.only.add(name.trim());
    } else if (a === "--help" || a === "-h") {
      process.stdout.write(
        `usage: npm run bench -- [--only NAME[,NAME]] [--json] [--quick]\nbenchmarks: ${BENCHMARKS.map((b) => b.name).join(", ")}\n`,
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${a} (try --help)`);
  }
  if (args.only) {
    const known = new Set(BENCHMARKS.map((b) => b.name));
    const unknown = [...args.only].filter((n) => !known.has(n));
    if (unknown.length)
      throw new Error(`unknown benchmark ${unknown.join(", ")} (known: ${[...known].join(", ")})`);
  }
  return args;
}

/** Finds the benchmark function a module exports. */
function pickFunction(mod: Record<string, unknown>, exportName?: string): BenchFn | undefined {
  if (exportName && typeof mod[exportName] === "function") return mod[exportName] as BenchFn;
  if (typeof mod.default === "function") return mod.default as BenchFn;
  const named = Object.entries(mod).find(
    ([k, v]) => typeof v === "function" && /^(bench|run|measure)/i.test(k),
  );
  return named?.[1] as BenchFn | undefined;
}

/** Accepts a BenchReport, or a plain object of numbers (each becomes a figure), from other work's benchmarks. */
function normalize(name: string, raw: unknown, seconds: number): BenchReport {
  const r = (raw ?? {}) as Partial<BenchReport> & Record<string, unknown>;
  if (Array.isArray(r.figures)) {
    return {
      name: r.name ?? name,
      title: r.title ?? name,
      figures: r.figures as Figure[],
      notes: Array.isArray(r.notes) ? r.notes : [],
      seconds: typeof r.seconds === "number" ? r.seconds : seconds,
    };
  }
  const figures: Figure[] = [];
  for (const [key, value] of Object.entries(r)) {
    if (typeof value === "number") figures.push({ id: key, label: key, value, unit: "" });
  }
  return { name, title: name, figures, notes: ["(figures as returned by the module)"], seconds };
}

async function runOne(entry: Entry, opts: BenchOptions): Promise<BenchReport | { skipped: string }> {
  const path = fileURLToPath(new URL(entry.file, import.meta.url));
  if (!existsSync(path)) {
    if (entry.optional) return { skipped: `bench/${entry.file.slice(2)} does not exist yet` };
    throw new Error(`missing ${path}`);
  }
  const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  if (entry.adapt) {
    const adapted = await entry.adapt(mod, opts);
    if (adapted) return adapted;
  }
  const fn = pickFunction(mod, entry.exportName);
  if (!fn) return { skipped: `bench/${entry.file.slice(2)} exports no benchmark function` };
  const t0 = performance.now();
  const raw = await fn(opts);
  return normalize(entry.name, raw, (performance.now() - t0) / 1000);
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}
function padStart(s: string, n: number): string {
  return s.length >= n ? s : " ".repeat(n - s.length) + s;
}

function ratioText(f: Figure): string {
  if (f.unit === "×" && f.spread) return `(${formatRatio(f.spread[0])}–${formatRatio(f.spread[1])})`;
  if (f.ratio === undefined || f.unit === "×") return "";
  return f.baseline ? `${formatRatio(f.ratio)} of ${f.baseline.label}` : formatRatio(f.ratio);
}

export function printReport(r: BenchReport, out: (s: string) => void): void {
  out(`\n${r.name} — ${r.title}  (${r.seconds.toFixed(1)} s)`);
  const rows = r.figures.map((f) => [
    f.label,
    f.unit === "×"
      ? formatRatio(f.value)
      : `${formatNumber(f.value)} ${f.unit}`.trim() +
        (f.wall !== undefined ? ` (wall ${formatNumber(f.wall)})` : ""),
    ratioText(f),
    f.target ? `${f.target.text} ${f.target.met ? "✓ met" : "✗ not met"}` : "",
  ]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length), 8));
  for (const row of rows) {
    out(
      `  ${pad(row[0], widths[0])}  ${padStart(row[1], widths[1])}  ${pad(row[2], widths[2])}  ${row[3]}`.trimEnd(),
    );
  }
  for (const note of r.notes) out(`  · ${note}`);
}

function header(m: MachineInfo): string {
  return `Proving Ground benchmarks — ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, node ${m.node}, ${m.platform}, load ${m.load.toFixed(2)} at start`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const m = machine();
  const say = args.json
    ? (s: string) => process.stderr.write(`${s}\n`)
    : (s: string) => process.stdout.write(`${s}\n`);
  const log = (s: string) => process.stderr.write(`${s}\n`);
  if (!args.json) say(header(m));
  const reports: BenchReport[] = [];
  const skipped: Array<{ name: string; reason: string }> = [];
  const failed: Array<{ name: string; error: string }> = [];
  const t0 = performance.now();
  for (const entry of BENCHMARKS) {
    if (args.only && !args.only.has(entry.name)) continue;
    log(`[bench] ${entry.name} ...`);
    try {
      const r = await runOne(entry, { quick: args.quick, log });
      if ("skipped" in r) {
        skipped.push({ name: entry.name, reason: r.skipped });
        if (!args.json) say(`\n${entry.name} — skipped: ${r.skipped}`);
        continue;
      }
      reports.push(r);
      if (!args.json) printReport(r, say);
    } catch (err) {
      const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
      failed.push({ name: entry.name, error });
      say(`\n${entry.name} — FAILED: ${error}`);
    }
  }
  const targets = reports.flatMap((r) => r.figures.filter((f) => f.target).map((f) => ({ r: r.name, f })));
  const met = targets.filter((t) => t.f.target!.met).length;
  const seconds = (performance.now() - t0) / 1000;
  // The whole run is held to a limit too (issue 28): 10 minutes, 3 with --quick.
  const limit = args.quick ? QUICK_LIMIT_S : FULL_LIMIT_S;
  const duration = args.only ? undefined : { seconds, limit, met: seconds <= limit };
  if (args.json) {
    process.stdout.write(
      `${JSON.stringify({ machine: m, seconds, duration, reports, skipped, failed, targets: { total: targets.length, met } }, null, 2)}\n`,
    );
  } else {
    say(`\n${met}/${targets.length} targets met in ${seconds.toFixed(0)} s.`);
    if (duration)
      say(
        `  ${duration.met ? "✓" : "✗"} the whole run: ${seconds.toFixed(0)} s (target ≤ ${limit} s${args.quick ? " with --quick" : ""}; load ${machine().load.toFixed(2)} at the end)`,
      );
    for (const t of targets.filter((x) => !x.f.target!.met)) {
      say(`  ✗ ${t.r}: ${t.f.label} = ${formatNumber(t.f.value)} ${t.f.unit} (target ${t.f.target!.text})`);
    }
  }
  if (failed.length) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  });
}
