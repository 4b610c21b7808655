import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { TrialRecord, TrialSpec } from "../src/core/contracts.ts";
import { DEFAULT_BUDGET } from "../src/runner/experiment.ts";
import { runTrial } from "../src/runner/trial.ts";
import { openStore } from "../src/store/open-store.ts";
import { trialToRows } from "../src/store/trial-rows.ts";
import { TrialWriter } from "../src/store/trial-writer.ts";
import { against, type BenchOptions, type BenchReport, type Figure } from "./figures.ts";
import { WORLD } from "./fixtures.ts";
import { median, medianRatio, spreadOf } from "./measure.ts";

const BATCH = 64;

/** Real trial records: the known-good policy on every family at difficulties 1–3 (full trajectories). */
async function sampleRecords(n: number): Promise<TrialRecord[]> {
  const families = WORLD.families.map((f) => f.name);
  const out: TrialRecord[] = [];
  for (let i = 0; i < n; i++) {
    const spec: TrialSpec = {
      schemaVersion: 1,
      id: `sample-${i}`,
      experimentId: "sample",
      index: i,
      world: WORLD.id,
      family: families[i % families.length],
      difficulty: 1 + (Math.floor(i / families.length) % 3),
      seed: i,
      repeat: 0,
      agent: { id: WORLD.knownGood, kind: "scripted", spec: WORLD.knownGood },
      budget: { ...DEFAULT_BUDGET },
    };
    out.push(await runTrial(spec, { world: WORLD, agent: WORLD.policies[WORLD.knownGood] }));
  }
  return out;
}

/** `count` records for one experiment, cycling through the samples under fresh ids. */
function recordsFor(samples: TrialRecord[], experimentId: string, count: number): TrialRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const base = samples[i % samples.length];
    return { ...base, spec: { ...base.spec, id: `${experimentId}-t${i}`, experimentId, index: i } };
  });
}

interface Run {
  seconds: number;
  cpu: number;
}

async function timed(fn: () => Promise<void>): Promise<Run> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const c = process.cpuUsage(c0);
  return { seconds: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 };
}

/**
 * The floor: better-sqlite3 itself, prepared statements, the same rows the store writes (`trialToRows`),
 * the same schema and pragmas (WAL, synchronous=FULL), one transaction per batch.
 */
async function rawWrite(file: string, records: TrialRecord[]): Promise<Run> {
  // the store creates the schema; the raw writer then uses the file as it is
  const store = await openStore(file);
  await store.createExperiment({
    id: records[0].spec.experimentId,
    config: {},
    createdAt: "2026-01-01T00:00:00Z",
  });
  await store.close();
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  try {
    return await timed(async () => {
      const first = trialToRows(records[0]);
      const insert = (table: string, row: object) =>
        db.prepare(
          `insert into ${table} (${Object.keys(row).join(", ")}) values (${Object.keys(row)
            .map(() => "?")
            .join(", ")})`,
        );
      const trials = insert("trials", first.trial);
      const steps = insert("steps", first.steps[0]);
      const verdicts = insert("verdicts", first.verdict!);
      const save = db.transaction((batch: TrialRecord[]) => {
        for (const record of batch) {
          const rows = trialToRows(record);
          trials.run(Object.values(rows.trial));
          for (const step of rows.steps) steps.run(Object.values(step));
          if (rows.verdict) verdicts.run(Object.values(rows.verdict));
        }
      });
      for (let i = 0; i < records.length; i += BATCH) save(records.slice(i, i + BATCH));
    });
  } finally {
    db.close();
  }
}

/** Opens a store on `file` with the records' experiment created, times `write` against it, closes it. */
async function timedOnStore(
  file: string,
  records: TrialRecord[],
  write: (store: Awaited<ReturnType<typeof openStore>>) => Promise<void>,
): Promise<Run> {
  const store = await openStore(file);
  try {
    await store.createExperiment({
      id: records[0].spec.experimentId,
      config: {},
      createdAt: "2026-01-01T00:00:00Z",
    });
    return await timed(() => write(store));
  } finally {
    await store.close();
  }
}

/** `Store.saveTrials`, one call (one transaction) per batch. */
function storeWrite(file: string, records: TrialRecord[]): Promise<Run> {
  return timedOnStore(file, records, async (store) => {
    for (let i = 0; i < records.length; i += BATCH) await store.saveTrials(records.slice(i, i + BATCH));
  });
}

/** The runner's way: a TrialWriter (batches of 64, saves in the background), one `add` per trial. */
function writerWrite(file: string, records: TrialRecord[]): Promise<Run> {
  return timedOnStore(file, records, async (store) => {
    const writer = new TrialWriter(store, { batchSize: BATCH });
    for (const record of records) writer.add(record);
    await writer.close();
  });
}

export async function benchStore(opts: BenchOptions = {}): Promise<BenchReport> {
  const t0 = performance.now();
  const count = opts.quick ? 512 : 2048;
  const rounds = opts.quick ? 1 : 3;
  const samples = await sampleRecords(48);
  const stepsPerTrial = samples.reduce((n, r) => n + r.steps.length, 0) / samples.length;
  const bytesPerTrial = samples.reduce((n, r) => n + JSON.stringify(r).length, 0) / samples.length;
  const dir = mkdtempSync(join(tmpdir(), "proving-bench-store-"));
  const raw: Run[] = [];
  const store: Run[] = [];
  const writer: Run[] = [];
  try {
    const variants = [
      { name: "raw", runs: raw, run: rawWrite },
      { name: "store", runs: store, run: storeWrite },
      { name: "writer", runs: writer, run: writerWrite },
    ];
    // a warm-up write (JIT, page cache), then rounds with the order rotated so no variant always goes first
    await storeWrite(join(dir, "warmup.db"), recordsFor(samples, "warmup", Math.min(count, 256)));
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < variants.length; k++) {
        const v = variants[(r + k) % variants.length];
        v.runs.push(
          await v.run(join(dir, `${v.name}-${r}.db`), recordsFor(samples, `${v.name}-${r}`, count)),
        );
      }
      opts.log?.(
        `  round ${r + 1}/${rounds}: raw ${Math.round(count / raw[r].seconds)}/s, saveTrials ${Math.round(count / store[r].seconds)}/s, TrialWriter ${Math.round(count / writer[r].seconds)}/s`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const rate = (runs: Run[]) => runs.map((x) => count / x.seconds);
  const cpuRate = (runs: Run[]) => runs.map((x) => count / x.cpu);
  const baseline = { label: "raw SQLite", value: median(rate(raw)) };
  const figures: Figure[] = [
    {
      id: "raw_trials_per_s",
      label: "raw better-sqlite3, same rows (baseline)",
      value: baseline.value,
      unit: "trials/s",
      spread: spreadOf(rate(raw)),
    },
    against(
      {
        id: "store_trials_per_s",
        label: `Store.saveTrials, ${BATCH} per transaction`,
        value: median(rate(store)),
        unit: "trials/s",
        spread: spreadOf(rate(store)),
      },
      baseline,
    ),
    against(
      {
        id: "writer_trials_per_s",
        label: `TrialWriter (the runner's path), batch ${BATCH}`,
        value: median(rate(writer)),
        unit: "trials/s",
        spread: spreadOf(rate(writer)),
      },
      baseline,
    ),
    {
      id: "store_steps_per_s",
      label: "step rows written/s via saveTrials",
      value: median(rate(store)) * stepsPerTrial,
      unit: "rows/s",
    },
    {
      id: "store_over_raw",
      label: "saveTrials cost per trial ÷ raw",
      value: medianRatio(rate(raw), rate(store)),
      unit: "×",
    },
    {
      id: "store_cpu_trials_per_s",
      label: "saveTrials per CPU-second",
      value: median(cpuRate(store)),
      unit: "trials/s",
    },
  ];
  return {
    name: "store",
    title: "Store: trials/s written to SQLite with full trajectories (batched transactions)",
    figures,
    notes: [
      `${count} records per run (${stepsPerTrial.toFixed(1)} steps and ~${(bytesPerTrial / 1024).toFixed(1)} KB of JSON each: real runTrial records of the known-good policy on every family, d1–3), a fresh database file in ${tmpdir()} per run, WAL and synchronous=FULL (every commit is fsynced).`,
      "Rates are wall-clock (the disk is part of the cost); median of rounds. raw = better-sqlite3 prepared statements, the same rows (trialToRows) and schema, one transaction per batch, no idempotency deletes.",
    ],
    seconds: (performance.now() - t0) / 1000,
  };
}
