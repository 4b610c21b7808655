import { CanonicalText, knownText, NEEDS_ESCAPE, quote, sortKeys } from "./canonical-text.ts";

/**
 * Feeds the canonical JSON of a value (the same bytes as `canonicalJson(value)` in UTF-8) straight
 * into a hash, written into a reused byte buffer: no strings are built, so hashing a long trajectory
 * costs a walk of it and the hash itself. `test/core/hash.test.ts` holds it to the string writer.
 */
export function hashCanonical(hash: Sink, value: unknown): void {
  // One buffer reused across calls; a nested call (a getter that hashes) gets its own.
  const buf = pooled ?? Buffer.allocUnsafe(CAPACITY);
  pooled = undefined;
  try {
    const w = new ByteWriter(hash, buf);
    w.value(value);
    w.flush();
  } finally {
    pooled = buf;
  }
}

/**
 * Canonical JSON written part by part: objects and arrays opened and closed by the caller, their
 * members and items written as values. The caller gives an object's keys in sorted order (as
 * canonical JSON has them); a member whose value is `undefined` or a function is left out, as
 * `hashJson` leaves it out. Lets a caller hash a value it would otherwise build just to hash (a
 * trajectory's steps) without building it.
 */
export interface CanonicalParts {
  beginObject(): void;
  endObject(): void;
  /** A member `"key":value` of the innermost object. */
  member(key: string, value: unknown): void;
  /** The key of a member whose value the caller writes next (`beginObject`, `beginArray` or `item`). */
  memberKey(key: string): void;
  beginArray(): void;
  endArray(): void;
  /** An item of the innermost array, or the value after `memberKey`. */
  item(value: unknown): void;
}

/** Feeds canonical JSON written by `write` (part by part) into a hash, as `hashCanonical` does. */
export function hashCanonicalParts(hash: Sink, write: (parts: CanonicalParts) => void): void {
  const buf = pooled ?? Buffer.allocUnsafe(CAPACITY);
  pooled = undefined;
  try {
    const w = new ByteWriter(hash, buf);
    write(new PartWriter(w));
    w.flush();
  } finally {
    pooled = buf;
  }
}

class PartWriter implements CanonicalParts {
  /** Entries written so far in each open object or array, innermost last. */
  readonly #counts: number[] = [];
  /** Whether each open level is an array. */
  readonly #arrays: boolean[] = [];
  /** A member key was just written: the next value is its value. */
  #keyed = false;

  constructor(private readonly w: ByteWriter) {}

  /** Before a value: a comma between array items (not after a member key). */
  #entry(): void {
    if (this.#keyed) {
      this.#keyed = false;
      return;
    }
    const top = this.#counts.length - 1;
    if (top >= 0 && this.#arrays[top] && this.#counts[top]++ > 0) this.w.raw(COMMA);
  }

  #open(array: boolean): void {
    this.#entry();
    this.w.raw(array ? LBRACKET : LBRACE);
    this.#counts.push(0);
    this.#arrays.push(array);
  }

  #close(): void {
    this.#counts.pop();
    this.w.raw(this.#arrays.pop() ? RBRACKET : RBRACE);
  }

  beginObject(): void {
    this.#open(false);
  }

  endObject(): void {
    this.#close();
  }

  beginArray(): void {
    this.#open(true);
  }

  endArray(): void {
    this.#close();
  }

  memberKey(key: string): void {
    const top = this.#counts.length - 1;
    if (this.#counts[top]++ > 0) this.w.raw(COMMA);
    this.w.raw(keyBytes(key));
    this.#keyed = true;
  }

  member(key: string, value: unknown): void {
    if (value === undefined || typeof value === "function") return;
    this.memberKey(key);
    this.item(value);
  }

  item(value: unknown): void {
    this.#entry();
    if (value === undefined) this.w.raw(NULL);
    else this.w.value(value);
  }
}

/** The canonical JSON of a value as UTF-8 bytes (what `canonicalJson` gives, encoded). */
export function canonicalBytes(value: unknown): Uint8Array {
  const chunks: Buffer[] = [];
  hashCanonical(
    {
      update(data: Uint8Array | string) {
        // the writer reuses its buffer: keep a copy
        chunks.push(typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data));
      },
    },
    value,
  );
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** Where the writer sends bytes: a hash, or a collector. */
interface Sink {
  update(data: Uint8Array | string, encoding?: "utf8"): unknown;
}

const CAPACITY = 16384;
/** Tokens that may need more bytes than this go to the hash on their own. */
const INLINE_MAX = CAPACITY / 2;
let pooled: Buffer | undefined = Buffer.allocUnsafe(CAPACITY);

const NULL = Buffer.from("null");
const TRUE = Buffer.from("true");
const FALSE = Buffer.from("false");
const COMMA = Buffer.from(",");
const LBRACE = Buffer.from("{");
const RBRACE = Buffer.from("}");
const LBRACKET = Buffer.from("[");
const RBRACKET = Buffer.from("]");

/** `"key":` as UTF-8, by key. */
const KEY_BYTES = new Map<string, Uint8Array>();
const KEY_BYTES_MAX = 4096;

function keyBytes(key: string): Uint8Array {
  let b = KEY_BYTES.get(key);
  if (b === undefined) {
    b = Buffer.from(`${quote(key)}:`, "utf8");
    if (KEY_BYTES.size < KEY_BYTES_MAX) KEY_BYTES.set(key, b);
  }
  return b;
}

const encoder = new TextEncoder();

/** Strings longer than this go to the native UTF-8 encoder (a call costs about what 8 characters do in the loop). */
const NATIVE_FROM = 8;

class ByteWriter {
  private pos = 0;

  constructor(
    private readonly hash: Sink,
    private readonly buf: Buffer,
  ) {}

  flush(): void {
    if (this.pos > 0) {
      this.hash.update(this.buf.subarray(0, this.pos));
      this.pos = 0;
    }
  }

  private room(n: number): void {
    if (this.pos + n > this.buf.length) this.flush();
  }

  private byte(b: number): void {
    if (this.pos >= this.buf.length) this.flush();
    this.buf[this.pos++] = b;
  }

  /** Bytes already canonical JSON. */
  raw(src: Uint8Array): void {
    this.bytes(src);
  }

  private bytes(src: Uint8Array): void {
    const n = src.length;
    if (n > INLINE_MAX) {
      this.flush();
      this.hash.update(src);
      return;
    }
    this.room(n);
    const buf = this.buf;
    let p = this.pos;
    if (n > 64) buf.set(src, p);
    else for (let i = 0; i < n; i++) buf[p + i] = src[i];
    p += n;
    this.pos = p;
  }

  /** A string of ASCII characters that need no escaping (a number). */
  private ascii(s: string): void {
    const n = s.length;
    this.room(n);
    const buf = this.buf;
    const p = this.pos;
    for (let i = 0; i < n; i++) buf[p + i] = s.charCodeAt(i);
    this.pos = p + n;
  }

  /** Any text (already JSON), encoded as UTF-8. */
  private text(s: string): void {
    if (s.length * 3 > INLINE_MAX) {
      this.flush();
      this.hash.update(s, "utf8");
      return;
    }
    this.room(s.length * 3);
    this.pos += encoder.encodeInto(s, this.buf.subarray(this.pos)).written;
  }

  /** A string value, quoted and escaped as JSON.stringify does, as UTF-8. */
  private string(s: string): void {
    const n = s.length;
    if (n * 3 + 2 > INLINE_MAX) {
      this.text(quote(s));
      return;
    }
    this.room(n * 3 + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 0x22;
    if (n > NATIVE_FROM && !NEEDS_ESCAPE.test(s)) {
      // nothing to escape: the string's UTF-8 is its JSON, written by the native encoder
      p += buf.write(s, p);
      buf[p++] = 0x22;
      this.pos = p;
      return;
    }
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        if (c < 0x20 || c === 0x22 || c === 0x5c) {
          this.text(JSON.stringify(s));
          return;
        }
        buf[p++] = c;
      } else if (c < 0x800) {
        buf[p++] = 0xc0 | (c >> 6);
        buf[p++] = 0x80 | (c & 0x3f);
      } else if (c >= 0xd800 && c <= 0xdfff) {
        // surrogates: JSON.stringify keeps pairs and escapes lone ones; the encoder does the rest
        this.text(JSON.stringify(s));
        return;
      } else {
        buf[p++] = 0xe0 | (c >> 12);
        buf[p++] = 0x80 | ((c >> 6) & 0x3f);
        buf[p++] = 0x80 | (c & 0x3f);
      }
    }
    buf[p++] = 0x22;
    this.pos = p;
  }

  value(value: unknown): void {
    if (value === null) {
      this.bytes(NULL);
      return;
    }
    switch (typeof value) {
      case "string":
        this.string(value);
        return;
      case "number":
        if (Number.isFinite(value)) this.ascii(String(value));
        else this.bytes(NULL);
        return;
      case "boolean":
        this.bytes(value ? TRUE : FALSE);
        return;
      case "object": {
        if (Array.isArray(value)) {
          const known = knownText(value);
          if (known !== undefined) {
            this.bytes(known.bytes);
            return;
          }
          this.byte(0x5b);
          for (let i = 0; i < value.length; i++) {
            if (i > 0) this.byte(0x2c);
            const item = value[i];
            if (item === undefined) this.bytes(NULL);
            else this.value(item);
          }
          this.byte(0x5d);
          return;
        }
        if (value instanceof CanonicalText) {
          this.bytes(value.bytes);
          return;
        }
        const obj = value as Record<string, unknown>;
        const keys = Object.keys(obj);
        sortKeys(keys);
        this.byte(0x7b);
        let first = true;
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          const item = obj[key];
          if (item === undefined || typeof item === "function") continue;
          if (!first) this.byte(0x2c);
          first = false;
          this.bytes(keyBytes(key));
          this.value(item);
        }
        this.byte(0x7d);
        return;
      }
      default:
        this.bytes(NULL);
    }
  }
}
