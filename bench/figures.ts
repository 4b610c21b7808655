/**
 * What a benchmark returns: figures, each with the baseline it was measured against in the same run
 * (and the ratio between them) and the target it is held to. `bench/run.ts` prints them; `--json`
 * emits them as they are.
 */

export interface Target {
  /** What is promised, e.g. `≥ 200,000 steps/s` or `≤ 2×`. */
  text: string;
  met: boolean;
}

export interface Figure {
  /** Stable id for machines (`full_steps_per_s`). */
  id: string;
  label: string;
  value: number;
  unit: string;
  /** The figure this one is compared with, measured in the same run. */
  baseline?: { label: string; value: number };
  /** `value / baseline.value`, or a cost ratio (unit `×`) when the figure is itself a ratio. */
  ratio?: number;
  target?: Target;
  /** Spread of the repeated measurements (min..max), when the figure is a median. */
  spread?: [number, number];
  /** For a rate per CPU-second: the same rate per wall-clock second (the machine is shared). */
  wall?: number;
}

export interface BenchReport {
  /** Name used by `--only`. */
  name: string;
  title: string;
  figures: Figure[];
  /** What a reader needs to interpret the figures (method, what limits them). */
  notes: string[];
  seconds: number;
}

/** Options every benchmark takes. */
export interface BenchOptions {
  /** Shorter runs (fewer rounds, less work per round): for smoke runs, not for the published figures. */
  quick?: boolean;
  /** Progress lines go here (stderr by default in the driver). */
  log?: (line: string) => void;
}

export function figure(f: Figure): Figure {
  return f;
}

/** A throughput figure compared with a baseline throughput: ratio = value / baseline. */
export function against(
  f: Omit<Figure, "ratio" | "baseline">,
  baseline: { label: string; value: number },
): Figure {
  return { ...f, baseline, ratio: f.value / baseline.value };
}

/** `≥ n`: met when value ≥ n. */
export function atLeast(value: number, n: number, unit: string): Target {
  return { text: `≥ ${formatNumber(n)} ${unit}`.trim(), met: value >= n };
}

/** `≤ n`: met when value ≤ n. */
export function atMost(value: number, n: number, unit: string): Target {
  return { text: `≤ ${formatNumber(n)} ${unit}`.trim(), met: value <= n };
}

export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (Number.isInteger(n) && abs < 1000) return String(n);
  if (abs >= 1000) return Math.round(n).toLocaleString("en-US");
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 10) return n.toFixed(1);
  if (abs >= 1) return n.toFixed(2);
  return n.toPrecision(2);
}

export function formatRatio(r: number): string {
  return r >= 10 ? `${r.toFixed(0)}×` : r >= 1 ? `${r.toFixed(2)}×` : `${r.toFixed(3)}×`;
}
