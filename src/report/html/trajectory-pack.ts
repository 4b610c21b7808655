import { gzipSync } from "node:zlib";
import type { Observation, TrialRecord } from "../../core/contracts.ts";
import type { JsonValue } from "../../core/json.ts";
import type { Store } from "../../store/store.ts";

/** What the page's trajectory viewer gets for one trial: the record, the tool list shared. */
export interface PackedTrial {
  id: string;
  outcome: TrialRecord["outcome"];
  reason: string;
  spec: {
    index: number;
    world: string;
    variantId?: string;
    variant?: JsonValue;
    family: string;
    difficulty: number;
    seed: number;
    repeat: number;
    agent: TrialRecord["spec"]["agent"];
    budget: TrialRecord["spec"]["budget"];
  };
  task: TrialRecord["task"];
  /** The first observation; a task observation's tool list is replaced by an index into `tools`. */
  initial?: Omit<Observation, "tools"> & { tools?: number };
  steps: TrialRecord["steps"];
  verdict?: TrialRecord["verdict"];
  stats: TrialRecord["stats"];
  trajectoryHash: string;
  startedAt: string;
  finishedAt: string;
}

export interface PackOptions {
  /** Trials per compressed chunk (default 100): the page inflates one chunk when a trial is opened. */
  chunkSize?: number;
  /** Stop embedding chunks once their base64 text would pass this many bytes (default 8.5 MB). */
  maxBytes?: number;
  /** Store page size while reading (default 64). */
  pageSize?: number;
}

export interface PackedTrajectories {
  /** gzip + base64 JSON arrays of PackedTrial, in manifest order; the last may be partial. */
  chunks: string[];
  /** Distinct tool lists of the trials' first observations (gzip + base64 JSON array). */
  tools: string;
  /** Where each embedded trial is: [chunk, offset]. */
  where: Map<string, [number, number]>;
  /** Trials recorded but left out because the size budget was reached. */
  omitted: number;
  /** Uncompressed JSON bytes of the embedded trials (for the size note). */
  rawBytes: number;
}

export const gzipBase64 = (value: unknown): string =>
  gzipSync(Buffer.from(JSON.stringify(value), "utf8"), { level: 9 }).toString("base64");

/**
 * Reads an experiment's full trial records a page at a time and packs them into compressed chunks
 * for the page, so opening a report inflates only the summary rows and each trial is inflated on
 * demand. Memory holds one chunk of records at a time.
 */
export async function packTrajectories(
  store: Store,
  experimentId: string,
  opts: PackOptions = {},
): Promise<PackedTrajectories> {
  const chunkSize = Math.max(1, opts.chunkSize ?? 100);
  const maxBytes = opts.maxBytes ?? 8_500_000;
  const chunks: string[] = [];
  const where = new Map<string, [number, number]>();
  const toolIndex = new Map<string, number>();
  const toolLists: JsonValue[] = [];
  let pending: PackedTrial[] = [];
  let bytes = 0;
  let rawBytes = 0;
  let pendingRaw = 0;
  let omitted = 0;
  let full = false;

  const flush = () => {
    if (pending.length === 0) return;
    const text = gzipBase64(pending);
    if (bytes + text.length > maxBytes) {
      full = true;
      omitted += pending.length;
    } else {
      const chunk = chunks.length;
      pending.forEach((t, i) => {
        where.set(t.id, [chunk, i]);
      });
      chunks.push(text);
      bytes += text.length;
      rawBytes += pendingRaw;
    }
    pending = [];
    pendingRaw = 0;
  };

  await store.exportJsonl(
    experimentId,
    (line) => {
      if (full) {
        omitted++;
        return;
      }
      const record = JSON.parse(line) as TrialRecord;
      pending.push(packTrial(record, toolIndex, toolLists));
      pendingRaw += line.length;
      if (pending.length >= chunkSize) flush();
    },
    { pageSize: opts.pageSize ?? 64 },
  );
  if (!full) flush();
  return { chunks, tools: gzipBase64(toolLists), where, omitted, rawBytes };
}

function packTrial(record: TrialRecord, toolIndex: Map<string, number>, toolLists: JsonValue[]): PackedTrial {
  const s = record.spec;
  let initial: PackedTrial["initial"];
  if (record.initial?.kind === "task") {
    const { tools, ...rest } = record.initial;
    const key = JSON.stringify(tools);
    let i = toolIndex.get(key);
    if (i === undefined) {
      i = toolLists.length;
      toolIndex.set(key, i);
      toolLists.push(tools as unknown as JsonValue);
    }
    initial = { ...rest, tools: i };
  } else if (record.initial) initial = record.initial;
  return {
    id: s.id,
    outcome: record.outcome,
    reason: record.reason,
    spec: {
      index: s.index,
      world: s.world,
      ...(s.variantId ? { variantId: s.variantId } : {}),
      ...(s.variant !== undefined ? { variant: s.variant } : {}),
      family: s.family,
      difficulty: s.difficulty,
      seed: s.seed,
      repeat: s.repeat,
      agent: s.agent,
      budget: s.budget,
    },
    task: record.task,
    ...(initial ? { initial } : {}),
    steps: record.steps,
    ...(record.verdict ? { verdict: record.verdict } : {}),
    stats: record.stats,
    trajectoryHash: record.trajectoryHash,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
  };
}
