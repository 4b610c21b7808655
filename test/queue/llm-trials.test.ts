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
  attemptsOf,
  auditedAdmissions,
  busiestWindow,
  llmLimitArgs,
  runQueued,
  spawnWorker,
  useCluster,
  waitForTrials,
} from "./cluster.ts";

const skip = postgresSkip() || redisSkip();
const q = useCluster(skip);
let fake: FakeLlmServer;

before(async () => {
  if (skip) return;
  const script = loadFakeScript("policy:cautious", defaultGym().registry, readDataFile);
  fake = await startFakeLlmServer({ model: script.model, faults: { latencyMs: 20 } });
});
after(async () => {
  await fake?.close();
});

describe("LLM trials across queue workers", { skip }, () => {
  test("2 workers × 2 concurrency of LLM trials never exceed the global per-endpoint limit in any window", async () => {
    const store = await q.cluster.freshStore();
    const db = 9;
    const queue = q.cluster.queueUrl(db);
    const limit = 4;
    const windowMs = 1000;
    const audit = "test:llm:audit";
    const agent = `openai-compatible:fake@${fake.baseURL}`;
    const r = await runQueued(
      q.cluster,
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
      const args = llmLimitArgs({ name, concurrency: 2, rpm: limit, windowMs, auditKey: audit });
      q.workers.push(spawnWorker(q.cluster, store, args, { queue }));
    }
    const trials = await waitForTrials(store, "llm", planned);
    assert.ok(
      trials.every((t) => t.outcome !== "infra_error" && t.outcome !== "agent_error"),
      JSON.stringify(trials.map((t) => [t.outcome, t.reason])),
    );
    const attempts = await attemptsOf(store, "llm");
    assert.ok(new Set(attempts.map((a) => a.worker)).size === 2, "both workers ran trials");
    const times = await auditedAdmissions(q.cluster, db, audit);
    assert.equal(times.length, fake.stats.requests, "every request the provider saw was admitted once");
    assert.ok(times.length > 2 * limit, `enough requests to test the limit (${times.length})`);
    const worst = busiestWindow(times, windowMs);
    assert.ok(worst <= limit, `at most ${limit} requests in any ${windowMs} ms window, saw ${worst}`);
    assert.equal(worst, limit, "the budget was used up to its limit (the limit, not the load, paced them)");
  });
});
