import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { configError, errorMessage, ProvingError } from "../core/errors.ts";
import type { Store } from "../store/store.ts";
import { isPostgresUrl } from "../store/store-url.ts";

export const DEFAULT_STORE = ".proving/proving.db";

/** The store a command uses: a SQLite file path (resolved) or a `postgres://` URL (as given). */
export function storePath(opt: string | undefined): string {
  const location = opt ?? process.env.PROVING_STORE ?? DEFAULT_STORE;
  return isPostgresUrl(location) ? location : path.resolve(location);
}

/** The store key given in `$PROVING_STORE_KEY` (else a SQLite store uses its key file, `<store>.key`). */
export async function storeKeyFromEnv(): Promise<{ recordKey?: Buffer; keySource?: string }> {
  const { STORE_KEY_ENV, storeKeyOptions } = await import("../store/store-key.ts");
  return storeKeyOptions(process.env[STORE_KEY_ENV]);
}

/** Opens the store; for reading commands, a missing file is a config error, not a new empty store. */
export async function withStore<T>(
  opt: string | undefined,
  mode: "read" | "write",
  fn: (store: Store) => Promise<T>,
): Promise<T> {
  const file = storePath(opt);
  if (mode === "read" && !isPostgresUrl(file) && !fs.existsSync(file)) {
    throw configError("no_store", `no store at ${file} (run \`proving run\` first, or pass --store PATH)`);
  }
  // the store's drivers (better-sqlite3, kysely, pg) load only in the commands that open one
  const { openStore } = await import("../store/open-store.ts");
  const store = await openStore(file, await storeKeyFromEnv());
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Reads a JSON or YAML file (by extension; YAML also parses JSON). */
export function readDataFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw configError("unreadable_file", `cannot read ${file}: ${errorMessage(err)}`);
  }
  try {
    return file.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw configError("bad_file", `cannot parse ${file}: ${errorMessage(err)}`);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Collects a repeatable option into an array. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function intOption(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n)) throw configError("bad_flag", `${name} must be an integer, got "${value}"`);
    return n;
  };
}

export function numberOption(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || value.trim() === "")
      throw configError("bad_flag", `${name} must be a number, got "${value}"`);
    return n;
  };
}

export const collectInt =
  (name: string) =>
  (value: string, previous: number[] = []): number[] => [...previous, intOption(name)(value)];

/** One-line error and exit code: 2 for bad input (config), 1 for anything else. */
export function reportFailure(err: unknown): never {
  if (err instanceof ProvingError) {
    process.stderr.write(`proving: error: ${err.message} [${err.code}]\n`);
    process.exit(err.fault === "config" ? 2 : 1);
  }
  process.stderr.write(`proving: error: ${errorMessage(err)}\n`);
  if (process.env.PROVING_DEBUG) console.error(err);
  process.exit(1);
}
