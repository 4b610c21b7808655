import { createHash } from "node:crypto";
import { CanonicalText, knownText, quote, rememberText, sortKeys } from "./canonical-text.ts";
import { type CanonicalParts, canonicalBytes, hashCanonical, hashCanonicalParts } from "./hash-bytes.ts";

export { CanonicalText } from "./canonical-text.ts";
export { type CanonicalParts, canonicalBytes } from "./hash-bytes.ts";

/**
 * Canonical JSON: object keys sorted, no whitespace, `undefined` members dropped.
 * Two values that mean the same data always give the same string.
 */
export function canonicalJson(value: unknown): string {
  return write(value);
}

/**
 * The canonical JSON of `value`, computed once per object and remembered by identity. Only for
 * values that are never mutated afterwards (a generated task): a later mutation would not be seen.
 */
export function canonicalOnce(value: object): CanonicalText {
  let text = knownText(value);
  if (text === undefined) {
    text = CanonicalText.fromBytes(canonicalBytes(value));
    rememberText(value, text);
  }
  return text;
}

/**
 * Declares an array constant: wherever it appears inside a value, `canonicalJson` and `hashJson`
 * copy its canonical JSON (computed now) instead of walking it again. For a world's tool list,
 * which every first observation carries. The array must never be mutated afterwards.
 */
export function constantArray<T extends readonly unknown[]>(value: T): T {
  canonicalOnce(value);
  return value;
}

/** Quoted key plus colon, by key: keys repeat across a trajectory, so each is escaped once. */
const KEY_CACHE = new Map<string, string>();
const KEY_CACHE_MAX = 4096;

function keyPrefix(key: string): string {
  let q = KEY_CACHE.get(key);
  if (q === undefined) {
    q = `${quote(key)}:`;
    if (KEY_CACHE.size < KEY_CACHE_MAX) KEY_CACHE.set(key, q);
  }
  return q;
}

/** Writes canonical JSON into `out`. (`hashJson` uses the byte writer of hash-bytes.ts instead.) */
class Writer {
  out = "";

  write(value: unknown): void {
    if (value === null) {
      this.out += "null";
      return;
    }
    switch (typeof value) {
      case "string":
        this.out += quote(value);
        return;
      case "number":
        // String(n) is JSON.stringify(n) for every finite number (-0 gives "0" in both).
        this.out += Number.isFinite(value) ? String(value) : "null";
        return;
      case "boolean":
        this.out += value ? "true" : "false";
        return;
      case "object": {
        if (Array.isArray(value)) {
          const known = knownText(value);
          if (known !== undefined) {
            this.out += known.text;
            return;
          }
          this.out += "[";
          for (let i = 0; i < value.length; i++) {
            if (i > 0) this.out += ",";
            const item = value[i];
            if (item === undefined) this.out += "null";
            else this.write(item);
          }
          this.out += "]";
          return;
        }
        if (value instanceof CanonicalText) {
          this.out += value.text;
          return;
        }
        const obj = value as Record<string, unknown>;
        const keys = Object.keys(obj);
        sortKeys(keys);
        this.out += "{";
        let first = true;
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          const item = obj[key];
          if (item === undefined || typeof item === "function") continue;
          if (!first) this.out += ",";
          first = false;
          this.out += keyPrefix(key);
          this.write(item);
        }
        this.out += "}";
        return;
      }
      default:
        this.out += "null";
    }
  }
}

function write(value: unknown): string {
  const w = new Writer();
  w.write(value);
  return w.out;
}

/** sha256 of the canonical JSON of a value, hex, truncated to `length` characters (default 16). */
export function hashJson(value: unknown, length = 16): string {
  const hash = createHash("sha256");
  hashCanonical(hash, value);
  return hash.digest("hex").slice(0, length);
}

/**
 * `hashJson` of a value written part by part (`CanonicalParts`) instead of built: the same hash as
 * `hashJson` of the value the parts describe.
 */
export function hashJsonParts(write: (parts: CanonicalParts) => void, length = 16): string {
  const hash = createHash("sha256");
  hashCanonicalParts(hash, write);
  return hash.digest("hex").slice(0, length);
}

/** sha256 hex of a string, truncated. */
export function hashString(text: string, length = 16): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}
