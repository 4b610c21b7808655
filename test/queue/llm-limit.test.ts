/**
 * The global per-endpoint LLM limit through Redis: K processes × M concurrent callers, each on its
 * own LimiterPool sharing one Redis budget, calling the fake provider. No window of the budget's
 * length, wherever it starts, holds more admitted requests than the limit (times are the Redis
 * server's). A throttle anywhere holds every process back.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/agents/llm/fake/index.ts";
import { LimiterPool } from "../../src/agents/llm/limiter.ts";
import { createRedisRateLimit } from "../../src/queue/redis-rate-limit.ts";
import { type RedisServer, redisSkip, startRedis } from "../support/services.ts";
import { busiestWindow } from "./cluster.ts";

const skip = redisSkip();
const CLIENT = fileURLToPath(new URL("./fixtures/limit-client.ts", import.meta.url));
let redis: RedisServer | undefined;
let fake: FakeLlmServer | undefined;
before(async () => {
  if (skip) return;
  redis = await startRedis();
  fake = await startFakeLlmServer({ model: () => ({ text: "ok" }) });
});
after(async () => {
  await fake?.close();
  await redis?.destroy();
});

function client(args: string[]): Promise<number[]> {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", "tsx", CLIENT, ...args],
      { env, timeout: 120_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${err.message}\n${stderr}`));
        else resolve(stdout.trim() ? stdout.trim().split("\n").map(Number) : []);
      },
    );
  });
}

describe("global LLM limit through Redis", { skip }, () => {
  test("3 processes × 4 callers never exceed the limit in any window", async () => {
    const limit = 6;
    const windowMs = 1000;
    const perCaller = 4;
    const runs = await Promise.all(
      [1, 2, 3].map(() =>
        client([redis!.url, fake!.baseURL, "4", String(perCaller), String(limit), String(windowMs)]),
      ),
    );
    const admits = runs.flat().sort((a, b) => a - b);
    assert.equal(admits.length, 3 * 4 * perCaller, "every request was admitted eventually");
    assert.equal(fake!.stats.requests, admits.length, "each admitted request reached the fake provider");
    const worst = busiestWindow(admits, windowMs);
    assert.ok(worst <= limit, `at most ${limit} requests in any ${windowMs} ms window, saw ${worst}`);
    assert.equal(worst, limit, "the budget was used up to its limit");
  });

  test("a throttle in one process holds the endpoint back in another", async () => {
    const opts = { requestsPerWindow: 100, windowMs: 1000, throttleHoldMs: 1500, prefix: "hold" };
    const a = await createRedisRateLimit(redis!.url, opts);
    const b = await createRedisRateLimit(redis!.url, opts);
    const { Redis } = await import("ioredis");
    const raw = new Redis(redis!.port, "127.0.0.1");
    try {
      const first = await new LimiterPool({ shared: a }).get("ep").acquire();
      first.throttled();
      await new Promise((r) => setTimeout(r, 50));
      assert.ok((await raw.pttl("hold:ep:hold")) > 0, "the throttle set the shared hold");
      let admitted = false;
      const pending = new LimiterPool({ shared: b })
        .get("ep")
        .acquire()
        .then((p) => {
          admitted = true;
          p.success();
        });
      await new Promise((r) => setTimeout(r, 200));
      if ((await raw.pttl("hold:ep:hold")) > 0)
        assert.equal(admitted, false, "no admission while the hold lasts");
      await pending;
      assert.ok(admitted, "admitted once the hold expired");
    } finally {
      raw.disconnect();
      await a.close();
      await b.close();
    }
  });
});
