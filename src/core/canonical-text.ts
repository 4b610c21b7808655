/**
 * What the canonical-JSON writers share: text already written (so a part that never changes is
 * serialized once) and the key order.
 */

/**
 * A part of a value already written as canonical JSON: the writers copy it as it is. Lets a big part
 * that never changes (a task inside a world's state) be serialized once. Holds the text, its UTF-8
 * bytes, or both; each is derived from the other once, when first asked for.
 */
export class CanonicalText {
  #text: string | undefined;
  #bytes: Uint8Array | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  static fromBytes(bytes: Uint8Array): CanonicalText {
    const t = new CanonicalText("");
    t.#text = undefined;
    t.#bytes = bytes;
    return t;
  }

  get text(): string {
    this.#text ??= decoder.decode(this.#bytes);
    return this.#text;
  }

  /** The text as UTF-8. */
  get bytes(): Uint8Array {
    this.#bytes ??= Buffer.from(this.#text ?? "", "utf8");
    return this.#bytes;
  }
}

const decoder = new TextDecoder();

const KNOWN = new WeakMap<object, CanonicalText>();

/** The canonical text remembered for this object, if any. */
export function knownText(value: object): CanonicalText | undefined {
  return KNOWN.get(value);
}

export function rememberText(value: object, text: CanonicalText): void {
  KNOWN.set(value, text);
}

/**
 * Sorts keys in place, in the order `Array.prototype.sort` gives strings (UTF-16 code units). Objects
 * here have a handful of keys, often already in order: an insertion sort does that without the
 * allocations of the built-in sort; long key lists still go to the built-in.
 */
export function sortKeys(keys: string[]): void {
  const n = keys.length;
  if (n > 32) {
    keys.sort();
    return;
  }
  for (let i = 1; i < n; i++) {
    const key = keys[i];
    let j = i - 1;
    if (keys[j] <= key) continue;
    while (j >= 0 && keys[j] > key) {
      keys[j + 1] = keys[j];
      j--;
    }
    keys[j + 1] = key;
  }
}

/** Characters JSON.stringify escapes in a string: quote, backslash, controls, (lone) surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON (JSON.stringify's escaping), without calling it when nothing needs escaping. */
export function quote(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}
