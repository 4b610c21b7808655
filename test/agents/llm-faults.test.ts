/**
 * Provider faults through whole episodes: a 429 storm (the limiter converges, nothing is lost),
 * provider errors that outlive retries (infra_error, never failed), hangs, and the cost of replies.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { policyModelByName } from "../../src/agents/llm/fake/index.ts";
import { createLlmAgent, defaultConfig } from "../../src/agents/llm/index.ts";
import { summarizeExperiment } from "../../src/report/summary.ts";
import { envFor, outcomesOf, registry, runWithRecords, specFor, withEnv, withServer } from "./llm-support.ts";

const cautious = () => policyModelByName("cautious", registry);

test("429 storm: the adaptive limiter backs off and no episode is lost", async () => {
  const maxConcurrent = 4;
  await withServer(
    { model: cautious(), faults: { latencyMs: 15, maxConcurrent, retryAfterMs: 10 } },
    async (server) => {
      const config = { ...defaultConfig("openai", "fake-model", server.baseURL), apiKey: "k" };
      config.retry = { maxRetries: 30, baseDelayMs: 5, maxDelayMs: 50, maxRetryAfterMs: 1000 };
      config.limiter = { initial: 32, max: 64 };
      const agent = createLlmAgent(config);
      const { result, records } = await runWithRecords(
        { families: ["approved-replacement", "lost-reply"], difficulties: [1], trials: 12, agents: ["x"] },
        {
          concurrency: 24,
          agents: [{ ref: { id: "storm", kind: "llm", spec: "storm" }, forWorld: () => agent }],
        },
      );
      assert.equal(records.length, 24);
      assert.deepEqual(new Set(outcomesOf(records)), new Set(["passed"]), "every episode passed");
      assert.equal(result.trials.filter((t) => t.outcome === "missing").length, 0);
      const snap = agent.limiter.snapshot();
      const throttled = server.stats.statuses[429] ?? 0;
      assert.ok(throttled > 0, "the storm happened");
      assert.ok(snap.decreases >= 1, "the limiter backed off");
      assert.ok(snap.decreases < throttled, "once per round trip, not once per 429");
      // (how close the limit gets to the provider's is timing; the simulation in llm-units checks it)
      const recordedThrottles = records
        .flatMap((r) => r.steps)
        .reduce((n, s) => n + Number(s.meta?.throttles ?? 0), 0);
      assert.equal(recordedThrottles, throttled, "every 429 is accounted for in the records");
    },
  );
});

test("an episode cut short by provider errors after retries is infra_error, never failed", async () => {
  await withServer(
    { model: cautious(), faults: { rules: [{ status: 500, turnFrom: 2, model: "flaky-model" }] } },
    async (server) => {
      const flaky = specFor("openai", server, "flaky-model", "maxRetries=2&retryBaseMs=1&id=flaky");
      const healthy = specFor("openai", server, "fake-model", "id=healthy");
      const { result, records } = await withEnv(envFor(server), () =>
        runWithRecords({ agents: [flaky, healthy], families: ["lost-reply"], difficulties: [1], trials: 2 }),
      );
      const byAgent = (id: string) => records.filter((r) => r.spec.agent.id === id);
      for (const r of byAgent("flaky")) {
        assert.equal(r.outcome, "infra_error");
        assert.match(r.reason, /provider_server_error/);
        assert.match(r.reason, /3 attempts/);
        assert.equal(r.steps.length, 2, "the episode ran until the provider broke");
        assert.equal(r.verdict, undefined, "no verdict is made up for a trial the provider cut short");
      }
      assert.deepEqual(outcomesOf(byAgent("healthy")), ["passed", "passed"]);
      const summary = summarizeExperiment(result.trials);
      assert.equal(summary.infra_error_rate, 0.5);
      assert.equal(summary.outcomes.failed, 0);
      assert.equal(summary.pass_rate_excluding_infra?.excluded, 2);
    },
  );
});

test("a retry-after longer than the agent will wait ends the call at once as infra_error", async () => {
  await withServer(
    { model: cautious(), faults: { rules: [{ status: 429, retryAfterMs: 600_000 }] } },
    async (server) => {
      const { records } = await withEnv(envFor(server), () =>
        runWithRecords({
          agents: [specFor("anthropic", server)],
          families: ["lost-reply"],
          difficulties: [1],
        }),
      );
      assert.equal(records[0].outcome, "infra_error");
      assert.match(records[0].reason, /provider_rate_limited/);
      assert.equal(server.stats.requests, 1, "it did not hammer a provider that asked for 10 minutes");
    },
  );
});

test("hangs time out and are retried; 500s and 503s in between are survived", async () => {
  await withServer(
    {
      model: cautious(),
      faults: {
        rules: [
          { hang: true, requests: [1] },
          { status: 503, requests: [2] },
          { status: 500, every: 4 },
        ],
      },
    },
    async (server) => {
      const spec = specFor("openai-compatible", server, "fake-model", "timeoutMs=150&retryBaseMs=1");
      const { records } = await withEnv(envFor(server), () =>
        runWithRecords({ agents: [spec], families: ["lost-reply"], difficulties: [1] }, { concurrency: 1 }),
      );
      assert.equal(records[0].outcome, "passed", records[0].reason);
      assert.equal(server.stats.hung, 1);
      const first = records[0].steps[0].meta;
      assert.equal(first?.retries, 2, "timeout then 503, then success");
      assert.equal(first?.throttles, 1, "the 503 counted as a throttle");
    },
  );
});

test("an unreachable provider is infra_error", async () => {
  let baseURL = "";
  await withServer({ model: cautious() }, async (server) => {
    baseURL = server.baseURL;
  });
  const spec = `openai-compatible:m@${baseURL}?maxRetries=1&retryBaseMs=1`;
  const { records } = await runWithRecords({ agents: [spec], families: ["lost-reply"], difficulties: [1] });
  assert.equal(records[0].outcome, "infra_error");
  assert.match(records[0].reason, /provider_network/);
});

test("a rejected API key is infra_error, not the agent's failure", async () => {
  await withServer({ model: cautious(), apiKey: "right-key" }, async (server) => {
    const { records } = await withEnv({ ...envFor(server), OPENAI_API_KEY: "wrong-key" }, () =>
      runWithRecords({ agents: [specFor("openai", server)], families: ["lost-reply"], difficulties: [1] }),
    );
    assert.equal(records[0].outcome, "infra_error");
    assert.match(records[0].reason, /provider_auth/);
    assert.equal(server.stats.requests, 0, "401s are not retried");
  });
});

test("a provider failing through the trial's time budget ends it infra_error, not the agent's timeout (issue 27)", async () => {
  await withServer(
    { model: cautious(), faults: { rules: [{ status: 500, turnFrom: 1, model: "broken-model" }] } },
    async (server) => {
      // backoffs of 0.4, 0.8, 1.6 s ... would outlast the 2 s trial budget
      const broken = specFor("openai", server, "broken-model", "maxRetries=20&retryBaseMs=400&id=broken");
      const { records } = await withEnv(envFor(server), () =>
        runWithRecords({
          agents: [broken],
          families: ["lost-reply"],
          difficulties: [1],
          trials: 2,
          budget: { maxSteps: 60, wallTimeoutMs: 2000 },
        }),
      );
      for (const r of records) {
        assert.equal(r.outcome, "infra_error", r.reason);
        assert.match(r.reason, /provider_server_error/);
        assert.match(r.reason, /time budget/);
      }
    },
  );
});
