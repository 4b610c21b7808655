import { type ChildProcess, spawn } from "node:child_process";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/**
 * Timing helpers. The machine is shared, so a benchmark never trusts one measurement: variants run
 * interleaved in rounds (A B C, A B C, ...), so a burst of load from elsewhere hits every variant of
 * a round alike, and figures are medians over rounds, ratios taken within each round.
 */

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function spreadOf(xs: readonly number[]): [number, number] {
  return [Math.min(...xs), Math.max(...xs)];
}

/** One unit of work: returns how many units (steps, episodes, trials) it did. */
export type Work = () => number | Promise<number>;

/** Units per second of wall-clock time and per second of this process's CPU time (user + system). */
export interface Rate {
  wall: number;
  cpu: number;
}

/**
 * Runs `work` until at least `minMs` of wall-clock time have passed. CPU time is what one core does
 * when it is ours: on a shared machine it is the steadier of the two (wall time also counts the
 * time other processes held the core), so throughput figures are given per CPU-second, wall beside.
 */
export async function rate(work: Work, minMs: number): Promise<Rate> {
  let units = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let elapsed = 0;
  do {
    units += await work();
    elapsed = performance.now() - t0;
  } while (elapsed < minMs);
  const c = process.cpuUsage(c0);
  const cpuSeconds = (c.user + c.system) / 1e6;
  return { wall: units / (elapsed / 1000), cpu: units / Math.max(cpuSeconds, 1e-6) };
}

export interface RoundsOptions {
  rounds: number;
  /** Minimum duration of each variant in each round. */
  minMs: number;
  /** Rounds run first and thrown away (JIT warm-up). */
  warmup?: number;
  log?: (line: string) => void;
}

export interface Series {
  wall: number[];
  cpu: number[];
}

/** Rates of each variant in each round, the variants interleaved within a round. */
export async function interleaved<K extends string>(
  variants: Record<K, Work>,
  opts: RoundsOptions,
): Promise<Record<K, Series>> {
  const names = Object.keys(variants) as K[];
  const out = Object.fromEntries(names.map((n) => [n, { wall: [], cpu: [] } as Series])) as Record<K, Series>;
  const warmup = opts.warmup ?? 1;
  for (let r = 0; r < warmup + opts.rounds; r++) {
    for (const name of names) {
      const v = await rate(variants[name], opts.minMs);
      if (r >= warmup) {
        out[name].wall.push(v.wall);
        out[name].cpu.push(v.cpu);
      }
    }
    if (r >= warmup)
      opts.log?.(
        `  round ${r - warmup + 1}/${opts.rounds}: ${names.map((n) => `${n} ${Math.round(out[n].cpu[out[n].cpu.length - 1])}/cpu-s ${Math.round(out[n].wall[out[n].wall.length - 1])}/s`).join(", ")}`,
      );
  }
  return out;
}

export interface IsolatedOptions {
  rounds: number;
  minMs: number;
  /** Warm-up in each process before its measurement. */
  warmupMs: number;
  log?: (line: string) => void;
}

const ISOLATED_CHILD = fileURLToPath(new URL("./isolated-child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** A warmed-up variant process that measures on request. */
class VariantProcess {
  readonly #child: ChildProcess;
  readonly #lines: AsyncIterator<string>;
  #stderr = "";

  constructor(
    readonly name: string,
    file: string,
    exportName: string,
    warmupMs: number,
  ) {
    this.#child = spawn(
      process.execPath,
      ["--import", "tsx", ISOLATED_CHILD, file, exportName, String(warmupMs)],
      {
        cwd: ROOT,
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    this.#child.stderr?.on("data", (d) => {
      this.#stderr = (this.#stderr + String(d)).slice(-4000);
    });
    this.#lines = createInterface({ input: this.#child.stdout! })[Symbol.asyncIterator]();
  }

  async #line(): Promise<string> {
    const next = await this.#lines.next();
    if (next.done) throw new Error(`variant ${this.name} exited: ${this.#stderr}`);
    return next.value;
  }

  async ready(): Promise<void> {
    const line = await this.#line();
    if (line !== "ready") throw new Error(`variant ${this.name}: ${line} ${this.#stderr}`);
  }

  async measure(minMs: number): Promise<Rate> {
    this.#child.stdin!.write(`run ${minMs}\n`);
    return JSON.parse(await this.#line()) as Rate;
  }

  close(): void {
    this.#child.stdin!.end();
  }
}

/**
 * Like `interleaved`, but each variant lives in a process of its own (a module path and the name of
 * the work function it exports), warmed up once: variants that share code (the world, the hash)
 * cannot slow each other down through the JIT, as they would in one process. Only the variant being
 * measured runs; rounds interleave the variants.
 */
export async function isolated<K extends string>(
  file: string,
  variants: Record<K, string>,
  opts: IsolatedOptions,
): Promise<Record<K, Series>> {
  const names = Object.keys(variants) as K[];
  const out = Object.fromEntries(names.map((n) => [n, { wall: [], cpu: [] } as Series])) as Record<K, Series>;
  const procs: VariantProcess[] = [];
  try {
    // started (and warmed up) one at a time, so warm-ups do not compete for the cores
    for (const name of names) {
      const p = new VariantProcess(name, file, variants[name], opts.warmupMs);
      procs.push(p);
      await p.ready();
    }
    for (let r = 0; r < opts.rounds; r++) {
      for (const [i, name] of names.entries()) {
        const v = await procs[i].measure(opts.minMs);
        out[name].wall.push(v.wall);
        out[name].cpu.push(v.cpu);
      }
      opts.log?.(
        `  round ${r + 1}/${opts.rounds}: ${names.map((n) => `${n} ${Math.round(out[n].cpu[r])}/cpu-s ${Math.round(out[n].wall[r])}/s`).join(", ")}`,
      );
    }
  } finally {
    for (const p of procs) p.close();
  }
  return out;
}

/** Median over rounds of `a[i] / b[i]`. */
export function medianRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((x, i) => x / b[i]));
}

export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  platform: string;
  /** 1-minute load average when the run started (other work on the machine). */
  load: number;
}

export function machine(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? "unknown",
    cores: os.availableParallelism(),
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    load: os.loadavg()[0],
  };
}

/** Runs the garbage collector when the process was started with `--expose-gc`. */
export function collect(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return false;
  gc();
  gc();
  return true;
}
