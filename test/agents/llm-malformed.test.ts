/**
 * Malformed and oversized 200s from a provider (the fake server's `body` faults): each is retried,
 * and an episode they outlast ends as `infra_error` (the provider's fault), never `agent_error`;
 * response bodies are capped on the wire and after decompression, so a gzip bomb costs no memory.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { policyModelByName } from "../../src/agents/llm/fake/index.ts";
import { createNodeFetch, ResponseTooLargeError } from "../../src/agents/llm/node-fetch.ts";
import { envFor, outcomesOf, registry, runWithRecords, specFor, withEnv, withServer } from "./llm-support.ts";

const cautious = () => policyModelByName("cautious", registry);

describe("malformed provider replies", () => {
  for (const body of ["empty", "non-json", "html"] as const) {
    test(`a 200 with ${body} body is retried, then infra_error (provider_bad_response)`, async () => {
      await withServer(
        { model: cautious(), faults: { rules: [{ body, model: "broken" }] } },
        async (server) => {
          const broken = specFor("openai", server, "broken", "maxRetries=2&retryBaseMs=1&id=broken");
          const { records } = await withEnv(envFor(server), () =>
            runWithRecords({ agents: [broken], families: ["denied"], difficulties: [1], trials: 1 }),
          );
          assert.equal(records.length, 1);
          assert.equal(records[0].outcome, "infra_error", records[0].reason);
          assert.equal(records[0].fault, "infrastructure");
          assert.match(records[0].reason, /provider_bad_response/);
          assert.match(records[0].reason, /3 attempts/);
          assert.equal(server.stats.requests, 3, "tried once and retried twice");
        },
      );
    });
  }

  test("a malformed 200 that does not last is retried and the episode passes", async () => {
    await withServer(
      { model: cautious(), faults: { rules: [{ body: "html", first: 1 }] } },
      async (server) => {
        const spec = specFor("anthropic", server, "fake-model", "maxRetries=2&retryBaseMs=1&id=ok");
        const { records } = await withEnv(envFor(server), () =>
          runWithRecords({ agents: [spec], families: ["denied"], difficulties: [1], trials: 1 }),
        );
        assert.deepEqual(outcomesOf(records), ["passed"]);
        assert.equal(server.stats.malformed, 1);
      },
    );
  });

  test("a gzip bomb and an endless body are cut at the cap (before and after decompression)", async () => {
    await withServer(
      {
        model: cautious(),
        faults: {
          rules: [
            { body: "gzip-bomb", bodyBytes: 64 << 20, model: "bomb" },
            { body: "huge", bodyBytes: 8 << 20, model: "huge" },
          ],
        },
      },
      async (server) => {
        const fetch1 = createNodeFetch({ maxResponseBytes: 1 << 20 });
        const call = (model: string) =>
          fetch1(`${server.baseURL}/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: "Bearer k" },
            body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
          });
        const before = process.memoryUsage().rss;
        for (const [model, where] of [
          ["bomb", "decompressed"],
          ["huge", "on the wire"],
        ] as const) {
          await assert.rejects(call(model), (err: unknown) => {
            assert.ok(err instanceof TypeError);
            assert.ok(err.cause instanceof ResponseTooLargeError, String(err.cause));
            assert.match(err.cause.message, new RegExp(where));
            return true;
          });
        }
        assert.ok(process.memoryUsage().rss - before < 256 << 20, "the bomb was never inflated");
        // through an episode: the cap failure is retried, then infra_error
        const spec = specFor("openai", server, "bomb", "maxRetries=1&retryBaseMs=1&id=bomb");
        const { records } = await withEnv(envFor(server), () =>
          runWithRecords({ agents: [spec], families: ["denied"], difficulties: [1], trials: 1 }),
        );
        assert.equal(records[0].outcome, "infra_error", records[0].reason);
        assert.equal(records[0].fault, "infrastructure");
      },
    );
  });
});
