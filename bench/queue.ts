/**
 * Trials on queue workers against a real Redis and Postgres: trials/s with 1, 2 and 4 `proving worker`
 * processes (as ratios to one worker), and the per-trial overhead of the queue against the
 * in-process runner writing to the same Postgres store. The trials are `spin@1`'s (test plugin): a
 * few units of busy-waiting work each. Needs initdb/pg_ctl and redis-server.
 */
import os from "node:os";
import { fileURLToPath } from "node:url";
import { loadFakeScript, startFakeLlmServer } from "../src/agents/llm/fake/index.ts";
import { readDataFile } from "../src/cli/context.ts";
import type { JsonObject } from "../src/core/json.ts";
import { defaultGym } from "../src/gym/default-gym.ts";
import type { Gym } from "../src/gym/gym.ts";
import { loadGym } from "../src/gym/load-gym.ts";
import { runQueuedExperiment } from "../src/queue/coordinator.ts";
import { parseExperiment } from "../src/runner/experiment.ts";
import { runExperiment } from "../src/runner/run.ts";
import { openStore } from "../src/store/open-store.ts";
import {
  auditedAdmissions,
  busiestWindow,
  type Cluster,
  llmLimitArgs,
  spawnWorker,
  startCluster,
  stopWorkers,
  type WorkerProcess,
} from "../test/queue/cluster.ts";
import { against, type BenchOptions, type BenchReport, type Figure } from "./figures.ts";

const PLUGIN = fileURLToPath(new URL("../test/queue/fixtures/spin-plugin.mjs", import.meta.url));

/** What the coordinator needs of the gym: its run parts and its description. */
const onQueue = (gym: Gym) => ({
  run: gym.runOptions(),
  gymDescription: gym.describe() as unknown as JsonObject,
});

export async function benchQueue(opts: BenchOptions = {}): Promise<BenchReport> {
  const log = opts.log ?? (() => undefined);
  const t0 = performance.now();
  const trials = opts.quick ? 4 : 12; // × 2 agents × 3 difficulties
  const ms = 15; // CPU per unit of work
  const cluster: Cluster = await startCluster();
  const workers: WorkerProcess[] = [];
  let n = 0;
  const gym = await loadGym(
    { schemaVersion: 1, plugins: [PLUGIN], worlds: ["spin@1"] },
    { cwd: process.cwd() },
  );
  const config = (id: string, n = trials) =>
    parseExperiment({
      id,
      worlds: ["spin@1"],
      agents: ["diligent", "lazy"],
      difficulties: [1, 2, 3],
      trials: n,
      params: { ms },
    });
  // a quick run warms up on one trial per cell (modules loaded, processes forked), not a full run
  const warmTrials = opts.quick ? 1 : trials;
  try {
    // baseline: the in-process runner, one trial at a time, recording into Postgres (warmed like the workers)
    const baseStore = await openStore(await cluster.freshStore());
    await runExperiment(config("warm-local", warmTrials), {
      ...gym.runOptions(),
      store: baseStore,
      concurrency: 1,
    });
    const started = performance.now();
    const local = await runExperiment(config("local"), {
      ...gym.runOptions(),
      store: baseStore,
      concurrency: 1,
    });
    const localRate = local.trials.length / ((performance.now() - started) / 1000);
    await baseStore.close();
    log(`in-process: ${localRate.toFixed(1)} trials/s`);

    const rates = new Map<number, number>();
    for (const count of [1, 2, 4]) {
      const url = await cluster.freshStore();
      const queue = cluster.queueUrl(++n);
      const set = Array.from({ length: count }, () =>
        spawnWorker(cluster, url, ["--quiet", "--reconcile-ms", "0"], { queue }),
      );
      workers.push(...set);
      const store = await openStore(url);
      // warm up: every worker's trial process started (forked, modules loaded)
      await runQueuedExperiment(config("warm", warmTrials), {
        ...onQueue(gym),
        store,
        queueUrl: queue,
        pollMs: 50,
      });
      const begin = performance.now();
      const r = await runQueuedExperiment(config(`w${count}`), {
        ...onQueue(gym),
        store,
        queueUrl: queue,
        pollMs: 20,
      });
      const rate = r.trials.length / ((performance.now() - begin) / 1000);
      rates.set(count, rate);
      log(`${count} worker(s): ${rate.toFixed(1)} trials/s`);
      await store.close();
      await stopWorkers(set);
    }
    const llm = await llmLimitRun(cluster, workers, opts.quick ? 4 : 8, log);
    const one = rates.get(1)!;
    const figures: Figure[] = [
      {
        id: "in_process_trials_per_s",
        label: "in-process runner (concurrency 1, Postgres store)",
        value: localRate,
        unit: "trials/s",
      },
      ...[1, 2, 4].map((c) =>
        against(
          {
            id: `queue_${c}_workers_trials_per_s`,
            label: `${c} queue worker(s), concurrency 1 each`,
            value: rates.get(c)!,
            unit: "trials/s",
          },
          { label: "1 worker", value: one },
        ),
      ),
      against(
        {
          id: "queue_one_worker_vs_in_process",
          label: "1 queue worker against the in-process runner",
          value: one,
          unit: "trials/s",
        },
        { label: "in-process", value: localRate },
      ),
      {
        id: "queue_overhead_ms_per_trial",
        label: "per-trial overhead of the queue (1 worker) over in-process",
        value: 1000 / one - 1000 / localRate,
        unit: "ms",
      },
      against(
        {
          id: "queue_llm_busiest_window",
          label: `LLM trials, ${llm.workers} workers × ${llm.concurrency}: most requests admitted in any ${llm.windowMs} ms window`,
          value: llm.busiest,
          unit: "requests",
        },
        { label: `the limit (${llm.limit})`, value: llm.limit },
      ),
      against(
        {
          id: "queue_llm_requests_per_s",
          label: `LLM requests/s admitted, first to last admission (${llm.requests} requests, ${llm.trials} trials)`,
          value: llm.rate,
          unit: "requests/s",
        },
        { label: "the limit's rate", value: (llm.limit * 1000) / llm.windowMs },
      ),
    ];
    return {
      name: "queue",
      title: "Trials on BullMQ workers (Redis) recording into Postgres",
      figures,
      notes: [
        `${config("x").trials * 6} spin@1 trials per run, ${ms} ms of CPU per unit of work; warm workers (one experiment run first)`,
        `machine: ${os.availableParallelism()} cores shared with Redis, Postgres, the coordinator and other work; a unit of work busy-waits ${ms} ms of wall clock, so a descheduled trial still ends on time and more workers than cores can still gain (CPU-bound trials would not)`,
        "overhead = 1/rate(1 worker) - 1/rate(in-process): a job round trip through Redis, the write-once record and attempt rows in Postgres, the coordinator polling",
        `LLM limit: openai-compatible agent on the fake provider (policy:cautious, 20 ms latency), device-support lost-reply d1; every admission audited in Redis (--llm-audit-key, server clock); a window over the limit would be a ratio above 1`,
      ],
      seconds: (performance.now() - t0) / 1000,
    };
  } finally {
    await stopWorkers(workers);
    await cluster.destroy();
  }
}

interface LlmLimitRun {
  workers: number;
  concurrency: number;
  limit: number;
  windowMs: number;
  trials: number;
  requests: number;
  busiest: number;
  rate: number;
}

/** Full LLM trials on K workers × M concurrency sharing one per-endpoint limit through Redis. */
async function llmLimitRun(
  cluster: Cluster,
  workers: WorkerProcess[],
  trials: number,
  log: (line: string) => void,
): Promise<LlmLimitRun> {
  const K = 2;
  const M = 2;
  const limit = 5;
  const windowMs = 1000;
  const audit = "bench:llm:audit";
  const script = loadFakeScript("policy:cautious", defaultGym().registry, readDataFile);
  const fake = await startFakeLlmServer({ model: script.model, faults: { latencyMs: 20 } });
  const url = await cluster.freshStore();
  const db = 15;
  const queue = cluster.queueUrl(db);
  const set = Array.from({ length: K }, (_, i) =>
    spawnWorker(
      cluster,
      url,
      [
        "--quiet",
        ...llmLimitArgs({ name: `llm-${i}`, concurrency: M, rpm: limit, windowMs, auditKey: audit }),
      ],
      { queue },
    ),
  );
  workers.push(...set);
  const store = await openStore(url);
  try {
    const gym = defaultGym();
    const config = parseExperiment({
      id: "llm",
      worlds: ["device-support@1"],
      families: ["lost-reply"],
      difficulties: [1],
      agents: [`openai-compatible:fake@${fake.baseURL}`],
      trials,
    });
    const r = await runQueuedExperiment(config, { ...onQueue(gym), store, queueUrl: queue, pollMs: 50 });
    const times = await auditedAdmissions(cluster, db, audit);
    const busiest = busiestWindow(times, windowMs);
    log(
      `LLM: ${times.length} requests (${fake.stats.requests} at the provider), busiest window ${busiest}/${limit}`,
    );
    return {
      workers: K,
      concurrency: M,
      limit,
      windowMs,
      trials: r.trials.length,
      requests: times.length,
      busiest,
      // from the first admission to the last (the workers' start-up left out)
      rate: times.length > 1 ? ((times.length - 1) * 1000) / (times.at(-1)! - times[0]!) : 0,
    };
  } finally {
    await store.close();
    await stopWorkers(set);
    await fake.close();
  }
}
