import { randomUUID } from "node:crypto";
import type { SharedRateLimit } from "../agents/llm/limiter.ts";
import { importOptional } from "../core/optional-dependency.ts";
import { redisConnection } from "./connection.ts";

export interface RedisRateLimitOptions {
  /** Requests admitted per window per endpoint, over every process (0 = no request limit). */
  requestsPerWindow?: number;
  /** Tokens (input + output) per window per endpoint, over every process (0 = no token limit). */
  tokensPerWindow?: number;
  /** The window (default 60000 ms: per minute). */
  windowMs?: number;
  /** How long every process holds an endpoint back after a throttle (429) anywhere (default 2000 ms). */
  throttleHoldMs?: number;
  /** Key prefix in Redis (default `proving:llm`). */
  prefix?: string;
  /** Told the Redis server's time (ms) of every request this process is admitted (metrics, tests). */
  onAdmit?: (key: string, serverMs: number) => void;
  /**
   * A Redis list that gets `endpoint server-ms` of every admission, by every process (an audit of the
   * global limit: `proving worker --llm-audit-key`). Unbounded: trim or delete it yourself.
   */
  auditKey?: string;
}

// Sliding-window log on the Redis server's clock: a request is admitted only if fewer than the limit
// were admitted in the last window (so no window, wherever it starts, holds more), and the tokens
// spent in the last window are under theirs. Returns -(server ms) when admitted (counted), or the ms to wait.
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1]); local rpw = tonumber(ARGV[2]); local tpw = tonumber(ARGV[3])
local hold = redis.call('PTTL', KEYS[3])
if hold > 0 then return hold end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if rpw > 0 and redis.call('ZCARD', KEYS[1]) >= rpw then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + window - now + 1)
end
if tpw > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
  local items = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
  local sum = 0
  for i = 1, #items, 2 do sum = sum + tonumber(string.match(items[i], ':(%d+)$')) end
  if sum >= tpw then return math.max(1, tonumber(items[2]) + window - now + 1) end
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
if KEYS[4] then redis.call('RPUSH', KEYS[4], ARGV[5] .. ' ' .. now) end
return -now`;

const SPEND = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[2] .. ':' .. ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return 0`;

export interface RedisRateLimit extends SharedRateLimit {
  close(): Promise<void>;
}

/**
 * One per-endpoint budget (requests and tokens per window) shared by every worker through Redis, for
 * `new LimiterPool({shared})`: each process keeps its own adaptive (AIMD) concurrency limit, and all
 * of them draw on this budget and hold back together for a while after any 429. Tokens are counted
 * when a request ends, so requests in flight can overshoot the token budget by their own usage.
 */
export async function createRedisRateLimit(
  url: string,
  opts: RedisRateLimitOptions = {},
): Promise<RedisRateLimit> {
  const { Redis } = await importOptional(() => import("ioredis"));
  const redis = new Redis({ ...redisConnection(url), maxRetriesPerRequest: 3, lazyConnect: false });
  redis.on("error", () => undefined);
  const windowMs = opts.windowMs ?? 60_000;
  const rpw = opts.requestsPerWindow ?? 0;
  const tpw = opts.tokensPerWindow ?? 0;
  const holdMs = opts.throttleHoldMs ?? 2000;
  const prefix = opts.prefix ?? "proving:llm";
  const keys = (key: string) => [`${prefix}:${key}:req`, `${prefix}:${key}:tok`, `${prefix}:${key}:hold`];
  const sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", aborted);
        resolve();
      };
      const aborted = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", aborted, { once: true });
    });
  return {
    async admit(key, signal) {
      const id = randomUUID();
      for (;;) {
        if (signal?.aborted) throw signal.reason;
        const [req, tok, hold] = keys(key);
        const wait = Number(
          opts.auditKey
            ? await redis.eval(ADMIT, 4, req!, tok!, hold!, opts.auditKey, windowMs, rpw, tpw, id, key)
            : await redis.eval(ADMIT, 3, req!, tok!, hold!, windowMs, rpw, tpw, id),
        );
        if (wait <= 0) {
          opts.onAdmit?.(key, -wait);
          return;
        }
        await sleep(Math.min(wait, 1000), signal);
      }
    },
    async spend(key, tokens) {
      if (tpw <= 0 || !(tokens > 0)) return;
      await redis.eval(SPEND, 1, keys(key)[1]!, windowMs, randomUUID(), Math.round(tokens));
    },
    async throttled(key) {
      await redis.set(keys(key)[2]!, "1", "PX", holdMs, "NX");
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
