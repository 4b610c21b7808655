import { createHash } from "node:crypto";

/**
 * Canonical JSON: object keys sorted, no whitespace, `undefined` members dropped.
 * Two values that mean the same data always give the same string.
 */
export function canonicalJson(value: unknown): string {
  return write(value);
}

function write(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ",";
          const item = value[i];
          out += item === undefined ? "null" : write(item);
        }
        return out + "]";
      }
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj).sort();
      let out = "{";
      let first = true;
      for (const key of keys) {
        const item = obj[key];
        if (item === undefined || typeof item === "function") continue;
        if (!first) out += ",";
        first = false;
        out += JSON.stringify(key) + ":" + write(item);
      }
      return out + "}";
    }
    default:
      return "null";
  }
}

/** sha256 of the canonical JSON of a value, hex, truncated to `length` characters (default 16). */
export function hashJson(value: unknown, length = 16): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, length);
}

/** sha256 hex of a string, truncated. */
export function hashString(text: string, length = 16): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}
