import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { errorMessage, ProvingError } from "../core/errors.ts";

/** Bytes of a generated store key (HMAC-SHA256 keys of this length need no hashing first). */
export const STORE_KEY_BYTES = 32;

/** Where a SQLite store's key lives: beside the file, never inside it (`proving.db` → `proving.db.key`). */
export function storeKeyPath(storePath: string): string {
  return `${storePath}.key`;
}

/**
 * Parses a key given as text (`$PROVING_STORE_KEY` or a key file): 64 hex digits, as written by
 * `createKeyFile`; any other text of 16+ characters is used as its UTF-8 bytes.
 */
export function parseStoreKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (trimmed.length >= 16) return Buffer.from(trimmed, "utf8");
  throw new ProvingError(
    "store_key_invalid",
    `the store key from ${source} is too short: want 64 hex digits (or a secret of 16+ characters)`,
    { details: { source } },
  );
}

/** Reads the key file; `undefined` when there is none. */
export function readKeyFile(file: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as { code?: unknown }).code === "ENOENT") return undefined;
    throw new ProvingError("store_key_invalid", `cannot read the store key ${file}: ${errorMessage(err)}`, {
      cause: err,
      details: { file },
    });
  }
  return parseStoreKey(text, file);
}

/**
 * Reads the key file, creating it (mode 0600, a fresh random key) when there is none. Two processes
 * creating it at once agree: the file appears whole (written aside, then linked) and the first wins.
 */
export function readOrCreateKeyFile(file: string): Buffer {
  const existing = readKeyFile(file);
  if (existing) return existing;
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(tmp, `${randomBytes(STORE_KEY_BYTES).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    try {
      linkSync(tmp, file);
    } catch (err) {
      if ((err as { code?: unknown }).code !== "EEXIST") throw err;
    }
  } catch (err) {
    throw new ProvingError("store_open_failed", `cannot create the store key ${file}: ${errorMessage(err)}`, {
      cause: err,
      details: { file },
    });
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
  }
  return readKeyFile(file) as Buffer;
}

/** The environment variable composition roots read a store key from (a Postgres store's, or to override a file). */
export const STORE_KEY_ENV = "PROVING_STORE_KEY";

/** The `openStore` key options for a key given as text (the value of `$PROVING_STORE_KEY`); none when unset. */
export function storeKeyOptions(value: string | undefined): { recordKey?: Buffer; keySource?: string } {
  if (value === undefined || value === "") return {};
  return { recordKey: parseStoreKey(value, `$${STORE_KEY_ENV}`), keySource: `$${STORE_KEY_ENV}` };
}
