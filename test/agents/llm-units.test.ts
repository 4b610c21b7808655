import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { APICallError } from "ai";
import { Command } from "commander";
import {
  AimdLimiter,
  classifyFailure,
  DEFAULT_RETRY,
  INVALID_ARGUMENTS_KEY,
  MALFORMED_TOOL,
  mapToolCall,
  PriceTable,
  parseLlmSpec,
  retryAfterMs,
  retryDelayMs,
} from "../../src/agents/llm/index.ts";
import { cliGymSource } from "../../src/cli/gym-source.ts";
import type { ToolDescriptor } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import { defaultGym } from "../../src/gym/index.ts";

describe("AIMD limiter", () => {
  test("grows in slow start, halves once per round trip on throttles, then grows additively", async () => {
    const l = new AimdLimiter({ initial: 4, max: 100 });
    const round = async (n: number, outcome: (i: number) => "success" | "throttled") => {
      const permits = await Promise.all(Array.from({ length: n }, () => l.acquire()));
      permits.forEach((p, i) => {
        if (outcome(i) === "success") p.success();
        else p.throttled();
      });
    };
    await round(4, () => "success");
    assert.equal(l.limit, 8, "slow start: +1 per success");
    // a burst of 429s from the same round trip halves the limit once
    await round(8, (i) => (i < 5 ? "throttled" : "success"));
    assert.equal(l.limit, 4);
    assert.equal(l.snapshot().decreases, 1);
    await round(4, () => "success");
    assert.equal(l.limit, 5, "congestion avoidance: about +1 per round trip");
  });

  test("never exceeds its limit in flight, and queues in arrival order", async () => {
    const l = new AimdLimiter({ initial: 2, max: 2 });
    const a = await l.acquire();
    const b = await l.acquire();
    const order: string[] = [];
    const c = l.acquire().then((p) => {
      order.push("c");
      return p;
    });
    const d = l.acquire().then((p) => {
      order.push("d");
      return p;
    });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, []);
    assert.equal(l.snapshot().queued, 2);
    a.release();
    (await c).release();
    b.success();
    (await d).success();
    assert.deepEqual(order, ["c", "d"]);
    assert.equal(l.snapshot().inFlight, 0);
  });

  test("an aborted waiter leaves the queue", async () => {
    const l = new AimdLimiter({ initial: 1, max: 1 });
    const held = await l.acquire();
    const ctl = new AbortController();
    const waiting = l.acquire(ctl.signal);
    ctl.abort(new Error("stop"));
    await assert.rejects(waiting, /stop/);
    assert.equal(l.snapshot().queued, 0);
    held.success();
    (await l.acquire()).success();
  });

  test("against a provider that takes 4 at a time, 24 clients converge to ~4 without a storm", async () => {
    // rounds of one round trip each: everyone who wants a slot asks; the provider throttles what it
    // cannot take; no clock involved
    const capacity = 4;
    const l = new AimdLimiter({ initial: 32, max: 64 });
    const limits: number[] = [];
    let served = 0;
    let throttled = 0;
    for (let round = 0; round < 60; round++) {
      const permits = await Promise.all(Array.from({ length: Math.min(24, l.limit) }, () => l.acquire()));
      permits.forEach((p, i) => {
        if (i < capacity) p.success();
        else p.throttled();
        if (round >= 20) i < capacity ? served++ : throttled++;
      });
      limits.push(l.limit);
    }
    const steady = limits.slice(20);
    assert.ok(Math.max(...steady) <= 2 * capacity, `limit stays near capacity: ${steady}`);
    assert.ok(Math.min(...steady) >= capacity / 2, `and does not collapse: ${steady}`);
    assert.ok(
      served / 40 >= 0.75 * capacity,
      `reaches most of the allowed throughput: ${served / 40} per round`,
    );
    assert.ok(
      throttled / (served + throttled) <= 0.2,
      `without storms: ${throttled} throttled of ${served + throttled}`,
    );
  });

  test("an idle limiter does not grow", async () => {
    const l = new AimdLimiter({ initial: 8, max: 100 });
    for (let i = 0; i < 50; i++) (await l.acquire()).success();
    assert.equal(l.limit, 8);
  });
});

describe("retries", () => {
  test("retry-after-ms, retry-after seconds and dates", () => {
    assert.equal(retryAfterMs({ "retry-after-ms": "250" }), 250);
    assert.equal(retryAfterMs({ "retry-after": "3" }), 3000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    assert.equal(retryAfterMs({ "retry-after": "Thu, 01 Jan 2026 00:00:10 GMT" }, now), 10_000);
    assert.equal(retryAfterMs({ "retry-after": "soon" }), undefined);
    assert.equal(retryAfterMs({}), undefined);
  });

  test("the delay honours retry-after, backs off exponentially otherwise, and gives up", () => {
    const throttled = {
      kind: "rate_limited" as const,
      retryable: true,
      throttle: true,
      message: "",
      retryAfterMs: 2000,
    };
    assert.equal(
      retryDelayMs(throttled, 0, DEFAULT_RETRY, () => 0),
      2000,
    );
    assert.equal(
      retryDelayMs(throttled, 0, DEFAULT_RETRY, () => 1),
      2400,
    );
    assert.equal(retryDelayMs({ ...throttled, retryAfterMs: 10 ** 9 }, 0, DEFAULT_RETRY), undefined);
    const server = { kind: "server_error" as const, retryable: true, throttle: false, message: "" };
    const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000, maxRetries: 5 };
    assert.equal(
      retryDelayMs(server, 0, policy, () => 1),
      100,
    );
    assert.equal(
      retryDelayMs(server, 2, policy, () => 1),
      400,
    );
    assert.equal(
      retryDelayMs(server, 4, policy, () => 1),
      1000,
    );
    assert.equal(retryDelayMs(server, 5, policy), undefined);
    assert.equal(retryDelayMs({ ...server, retryable: false }, 0, policy), undefined);
  });

  test("provider failures are classified by status", () => {
    const err = (status: number, headers: Record<string, string> = {}) =>
      classifyFailure(
        new APICallError({
          message: "x",
          url: "u",
          requestBodyValues: {},
          statusCode: status,
          responseHeaders: headers,
        }),
        false,
      );
    assert.deepEqual(
      [429, 529, 503, 500, 408, 401, 404, 400].map((s) => [err(s).kind, err(s).retryable, err(s).throttle]),
      [
        ["rate_limited", true, true],
        ["overloaded", true, true],
        ["overloaded", true, true],
        ["server_error", true, false],
        ["server_error", true, false],
        ["auth", false, false],
        ["not_found", false, false],
        ["bad_request", false, false],
      ],
    );
    assert.equal(err(429, { "retry-after": "2" }).retryAfterMs, 2000);
    const timeout = new DOMException("t", "TimeoutError");
    assert.equal(classifyFailure(timeout, true).kind, "timeout");
    assert.equal(classifyFailure(new DOMException("a", "AbortError"), false).kind, "aborted");
  });
});

describe("prices", () => {
  test("exact, provider-qualified and dated model ids; user entries win", () => {
    const prices = new PriceTable();
    assert.deepEqual(prices.get("openai", "gpt-4o-mini")?.input, 0.15);
    assert.equal(prices.get("openai", "gpt-4o-2024-08-06")?.input, 2.5, "longest prefix: gpt-4o");
    assert.equal(prices.get("openai", "gpt-4o-mini-2024-07-18")?.input, 0.15, "not gpt-4o");
    assert.equal(prices.get("anthropic", "gpt-4o"), undefined, "prices belong to their provider");
    assert.equal(prices.get("openai", "gpt-4oxyz"), undefined, "a prefix ends at a dash");
    prices.add({ "my-local-model": { input: 0, output: 0.5 } });
    assert.equal(prices.get("openai-compatible", "my-local-model")?.output, 0.5);
    assert.throws(() => prices.add({ bad: { input: -1, output: 1 } }), /bad_price|expected/);
  });

  test("a table belongs to its gym: what one gym adds, another does not see", () => {
    const one = defaultGym({ prices: { "anthropic:claude-only-here": { input: 7, output: 9 } } });
    const other = defaultGym();
    assert.equal(one.prices.get("anthropic", "claude-only-here-2026")?.input, 7);
    assert.equal(other.prices.get("anthropic", "claude-only-here-2026"), undefined);
    assert.deepEqual(one.describe().prices, { "anthropic:claude-only-here": { input: 7, output: 9 } });
  });

  test("the CLI's gym adds the prices of PROVING_LLM_PRICES", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-prices-"));
    const file = path.join(dir, "prices.json");
    fs.writeFileSync(file, JSON.stringify({ "anthropic:claude-test": { input: 7, output: 9 } }));
    try {
      const gym = await cliGymSource(new Command(), { PROVING_LLM_PRICES: file })();
      assert.equal(gym.prices.get("anthropic", "claude-test-2026")?.input, 7);
      fs.writeFileSync(file, "{not json");
      await assert.rejects(cliGymSource(new Command(), { PROVING_LLM_PRICES: file })(), /PROVING_LLM_PRICES/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("agent specs", () => {
  const ctx = (env: Record<string, string> = {}) => ({ cwd: "/work", env, prices: new PriceTable() });

  test("openai needs a key for api.openai.com, reads OPENAI_BASE_URL", () => {
    assert.throws(
      () => parseLlmSpec("openai", "gpt-4o", ctx()),
      (e) => e instanceof ProvingError && e.code === "missing_api_key" && e.fault === "config",
    );
    const c = parseLlmSpec("openai", "gpt-4o", ctx({ OPENAI_API_KEY: "sk" }));
    assert.equal(c.baseURL, "https://api.openai.com/v1");
    assert.equal(c.apiKeyEnv, "OPENAI_API_KEY");
    assert.equal(c.price?.input, 2.5);
    const local = parseLlmSpec("openai", "m", ctx({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1/" }));
    assert.equal(local.baseURL, "http://127.0.0.1:9/v1");
  });

  test("ANTHROPIC_BASE_URL without /v1 (as Anthropic's SDK takes it) gets /v1", () => {
    const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "https://gw.example.com/anthropic" };
    assert.equal(
      parseLlmSpec("anthropic", "claude-x", ctx(env)).baseURL,
      "https://gw.example.com/anthropic/v1",
    );
    const v1 = { ...env, ANTHROPIC_BASE_URL: "http://127.0.0.1:5/v1" };
    assert.equal(parseLlmSpec("anthropic", "claude-x", ctx(v1)).baseURL, "http://127.0.0.1:5/v1");
  });

  test("openai-compatible:MODEL@URL with options; the key comes only from its own variable", () => {
    const c = parseLlmSpec(
      "openai-compatible",
      "llama3.1:8b@http://localhost:11434/v1?temperature=0.2&maxOutputTokens=512&id=llama&concurrency=2",
      ctx({ OPENAI_API_KEY: "must-not-leak" }),
    );
    assert.equal(c.model, "llama3.1:8b");
    assert.equal(c.baseURL, "http://localhost:11434/v1");
    assert.equal(c.temperature, 0.2);
    assert.equal(c.maxOutputTokens, 512);
    assert.equal(c.id, "llama");
    assert.equal(c.limiter.initial, 2);
    assert.equal(c.apiKey, undefined);
    assert.throws(() => parseLlmSpec("openai-compatible", "llama", ctx()), /MODEL@URL/);
  });

  test("bad options and templates are config errors naming the problem", () => {
    const env = { OPENAI_API_KEY: "k" };
    assert.throws(() => parseLlmSpec("openai", "m?temprature=1", ctx(env)), /unknown option "temprature"/);
    assert.throws(() => parseLlmSpec("openai", "m?temperature=hot", ctx(env)), /temperature=hot/);
    assert.throws(() => parseLlmSpec("openai", "m?instruction=Do+{{task}}", ctx(env)), /\{\{task\}\}/);
  });

  test("templates from files; PROVING_LLM_CACHE turns the cache on, cache=off opts out", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-spec-"));
    try {
      fs.writeFileSync(path.join(dir, "sys.txt"), "You work on {{world}}.");
      const c = parseLlmSpec("openai", "m?system=@sys.txt", {
        cwd: dir,
        env: { OPENAI_API_KEY: "k", PROVING_LLM_CACHE: "cache" },
        prices: new PriceTable(),
      });
      assert.equal(c.templates.system, "You work on {{world}}.");
      assert.equal(c.cacheDir, path.join(dir, "cache"));
      const off = parseLlmSpec("openai", "m?cache=off", {
        cwd: dir,
        env: { OPENAI_API_KEY: "k", PROVING_LLM_CACHE: "c" },
        prices: new PriceTable(),
      });
      assert.equal(off.cacheDir, undefined);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("tool calls to actions", () => {
  const strict: ToolDescriptor = {
    name: "get_case",
    description: "",
    input_schema: {
      type: "object",
      properties: { case_id: { type: "string" } },
      additionalProperties: false,
    },
  };
  const loose: ToolDescriptor = { name: "note", description: "", input_schema: { type: "object" } };
  const tools = new Map([strict, loose].map((t) => [t.name, t]));

  test("a valid call passes through", () => {
    const m = mapToolCall({ id: "1", name: "get_case", input: { case_id: "C-1" } }, tools);
    assert.deepEqual([m.tool, m.args, m.malformed], ["get_case", { case_id: "C-1" }, undefined]);
  });

  test("invalid JSON on a strict tool: an argument validation rejects", () => {
    const m = mapToolCall({ id: "1", name: "get_case", input: "{bad", problem: "invalid_json" }, tools);
    assert.equal(m.tool, "get_case");
    assert.deepEqual(m.args, { [INVALID_ARGUMENTS_KEY]: "{bad" });
    assert.equal(m.malformed?.kind, "invalid_json");
    assert.deepEqual(m.historyInput, {});
  });

  test("invalid JSON on a tool that accepts anything: sent to a tool no world has", () => {
    const m = mapToolCall({ id: "1", name: "note", input: "{bad", problem: "invalid_json" }, tools);
    assert.equal(m.tool, MALFORMED_TOOL);
    assert.equal(m.args.tool, "note");
  });

  test("non-object arguments, unknown and empty tool names", () => {
    assert.equal(
      mapToolCall({ id: "1", name: "get_case", input: [1] }, tools).malformed?.kind,
      "non_object_arguments",
    );
    const unknown = mapToolCall({ id: "1", name: "rm_rf", input: { x: 1 } }, tools);
    assert.deepEqual([unknown.tool, unknown.malformed?.kind], ["rm_rf", "unknown_tool"]);
    const empty = mapToolCall({ id: "1", name: "", input: {} }, tools);
    assert.deepEqual([empty.tool, empty.malformed?.kind], [MALFORMED_TOOL, "missing_tool_name"]);
  });
});
