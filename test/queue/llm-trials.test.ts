/**
 * Full LLM trials on queue workers against the fake provider: K workers × M concurrency, every
 * worker on the global per-endpoint limit through Redis (`--llm-rpm` over `--llm-window-ms`). Every
 * admission is audited in a Redis list (server clock): no window of the limit's length, wherever it
 * starts, holds more than the limit, and every request the provider saw was admitted.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FakeLlmServer, loadFakeScript, startFakeLlmServer } from "../../src/agents/llm/fake/index.ts";
import { readDataFile } from "../../src/cli/context.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { postgresSkip, redisSkip } from "../support/services.ts";
import {
  type Cluster,
  runQueued,
  spawnWorker,
  startCluster,
  stopWorkers,
  type WorkerProcess,
  waitFor,
  withStore,
} from "./cluster.ts";

const skip = postgresSkip() || redisSkip();
let cluster: Cluster;
let fake: FakeLlmServer;
const workers: WorkerProcess[] = [];

before(async () => {
  if (skip) return;
  cluster = await startCluster();
  const script = loadFakeScript("policy:cautious", defaultGym().registry, readDataFile);
  fake = await startFakeLlmServer({ model: script.model, faults: { latencyMs: 20 } });
});
after(async () => {
  await stopWorkers(workers);
  await fake?.close();
  await cluster?.destroy();
});

/** The most admissions in any half-open window [t, t + windowMs) of sorted times. */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  let worst = 0;
  let j = 0;
  for (let i = 0; i < times.length; i++) {
    if (j < i) j = i;
    while (j < times.length && times[j]! < times[i]! + windowMs) j++;
    worst = Math.max(worst, j - i);
  }
  return worst;
}

describe("LLM trials across queue workers", { skip }, () => {
  test("2 workers × 2 concurrency of LLM trials never exceed the global per-endpoint limit in any window", async () => {
    const store = await cluster.freshStore();
    const queue = cluster.redis.url.replace(/\/0$/, "/9");
    const limit = 4;
    const windowMs = 1000;
    const audit = "test:llm:audit";
    const agent = `openai-compatible:fake@${fake.baseURL}`;
    const r = await runQueued(
      cluster,
      store,
      [
        "--world",
        "device-support@1",
        "--family",
        "lost-reply",
        "--difficulty",
        "1",
        "--agent",
        agent,
        "--trials",
        "4",
        "--id",
        "llm",
        "--detach",
        "--json",
      ],
      queue,
    );
    assert.equal(r.code, 0, r.stderr);
    const planned = JSON.parse(r.stdout).planned as number;
    for (const name of ["llm-a", "llm-b"]) {
      const w = spawnWorker(
        cluster,
        store,
        [
          "--name",
          name,
          "--concurrency",
          "2",
          "--llm-rpm",
          String(limit),
          "--llm-window-ms",
          String(windowMs),
          "--llm-audit-key",
          audit,
        ],
        { queue },
      );
      workers.push(w);
    }
    const trials = await waitFor("the LLM trials recorded", () =>
      withStore(store, async (s) => {
        const t = await s.listTrials("llm");
        return t.length >= planned ? t : undefined;
      }).catch(() => undefined),
    );
    assert.ok(
      trials.every((t) => t.outcome !== "infra_error" && t.outcome !== "agent_error"),
      JSON.stringify(trials.map((t) => [t.outcome, t.reason])),
    );
    const attempts = await withStore(store, (s) => s.listAttempts("llm"));
    assert.ok(new Set(attempts.map((a) => a.worker)).size === 2, "both workers ran trials");
    const { Redis } = await import("ioredis");
    const raw = new Redis(cluster.redis.port, "127.0.0.1", { db: 9 });
    try {
      const entries = await raw.lrange(audit, 0, -1);
      const times = entries.map((e) => Number(e.slice(e.lastIndexOf(" ") + 1))).sort((a, b) => a - b);
      assert.equal(times.length, fake.stats.requests, "every request the provider saw was admitted once");
      assert.ok(times.length > 2 * limit, `enough requests to test the limit (${times.length})`);
      const worst = busiestWindow(times, windowMs);
      assert.ok(worst <= limit, `at most ${limit} requests in any ${windowMs} ms window, saw ${worst}`);
      assert.equal(worst, limit, "the budget was used up to its limit (the limit, not the load, paced them)");
    } finally {
      raw.disconnect();
    }
  });
});
