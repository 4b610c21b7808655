import { configError } from "../core/errors.ts";

/** The ioredis options BullMQ needs for a `redis://[user:pass@]host:port/db` URL. */
export interface RedisConnectionOptions {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  /** BullMQ workers block on Redis: no per-request retry cap (ioredis reconnects on its own). */
  maxRetriesPerRequest: null;
}

export function redisConnection(url: string): RedisConnectionOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw configError("bad_flag", `--queue wants redis://HOST:PORT/DB, got "${url}"`);
  }
  if (parsed.protocol !== "redis:")
    throw configError("bad_flag", `--queue wants redis://HOST:PORT/DB, got "${url}"`);
  const db = parsed.pathname.replace(/^\//, "");
  const out: RedisConnectionOptions = {
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port ? Number(parsed.port) : 6379,
    db: db ? Number(db) : 0,
    maxRetriesPerRequest: null,
  };
  if (!Number.isInteger(out.db) || out.db < 0)
    throw configError("bad_flag", `--queue: bad database number in "${url}"`);
  if (parsed.username) out.username = decodeURIComponent(parsed.username);
  if (parsed.password) out.password = decodeURIComponent(parsed.password);
  return out;
}
