/**
 * Response cache (opt-in): model replies keyed by the hash of the full request (provider, endpoint,
 * model, settings, system prompt, messages, tools), so a rerun replays the same calls exactly and
 * for free. Only successful replies are stored.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { hashJson } from "../../core/hash.ts";
import type { JsonValue } from "../../core/json.ts";

export interface ResponseCache {
  /** Where it lives (recorded in the agent config). */
  readonly location: string;
  get(key: string): Promise<JsonValue | undefined>;
  put(key: string, value: JsonValue): Promise<void>;
}

/** The cache key of a request: sha256 of its canonical JSON (never includes the API key). */
export function cacheKey(request: unknown): string {
  return hashJson(request, 64);
}

/** One JSON file per reply under `dir/ab/abcd....json`; safe for concurrent writers (write + rename). */
export class FileResponseCache implements ResponseCache {
  readonly location: string;
  private seq = 0;

  constructor(dir: string) {
    this.location = path.resolve(dir);
  }

  private file(key: string): string {
    return path.join(this.location, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<JsonValue | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.file(key), "utf8");
    } catch {
      return undefined;
    }
    try {
      const entry = JSON.parse(text) as { key?: string; value?: JsonValue };
      return entry.key === key ? entry.value : undefined;
    } catch {
      return undefined; // a torn or foreign file is a miss
    }
  }

  async put(key: string, value: JsonValue): Promise<void> {
    const file = this.file(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${++this.seq}.tmp`;
    await fs.writeFile(tmp, JSON.stringify({ key, value }));
    await fs.rename(tmp, file);
  }
}

export class MemoryResponseCache implements ResponseCache {
  readonly location = "memory";
  readonly entries = new Map<string, JsonValue>();

  async get(key: string): Promise<JsonValue | undefined> {
    const v = this.entries.get(key);
    return v === undefined ? undefined : structuredClone(v);
  }

  async put(key: string, value: JsonValue): Promise<void> {
    this.entries.set(key, structuredClone(value));
  }
}
