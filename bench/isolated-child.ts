/**
 * One benchmark variant in a process of its own (so no other variant's code shapes the JIT's view of
 * the shared paths): `isolated-child.ts MODULE EXPORT WARMUP_MS`. The export is a function returning
 * units of work done (or a promise of them). After warming up it prints `ready`, then answers each
 * `run MS` line on stdin with one JSON line of `{wall, cpu}` rates, until stdin ends.
 */
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { rate, type Work } from "./measure.ts";

async function main(): Promise<void> {
  const [file, name, warmupMs] = process.argv.slice(2);
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const work = mod[name];
  if (typeof work !== "function") throw new Error(`${file} exports no function ${name}`);
  await rate(work as Work, Number(warmupMs));
  process.stdout.write("ready\n");
  for await (const line of createInterface({ input: process.stdin })) {
    const [cmd, ms] = line.trim().split(/\s+/);
    if (cmd !== "run") break;
    const r = await rate(work as Work, Number(ms));
    process.stdout.write(`${JSON.stringify(r)}\n`);
  }
  // Work may leave handles open (a module agent's sandbox process, a session): end here, not when they close.
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
