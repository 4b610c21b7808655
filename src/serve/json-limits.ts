/**
 * Structural limits on the JSON a client sends, checked on the raw text before it is parsed:
 * a document nested past `maxDepth` or holding a string (a key or a value) longer than
 * `maxStringLength` characters is refused (the server answers `VALIDATION_ERROR`, 422) before any parser, schema or world sees it.
 * A linear scan: no recursion, so a 100 000-deep document costs one pass and no stack.
 */
export interface JsonLimits {
  /** Deepest nesting of arrays and objects (default 64). */
  maxDepth: number;
  /** Longest string, in UTF-16 code units as written (escapes counted as written; default 65 536). */
  maxStringLength: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = { maxDepth: 64, maxStringLength: 65_536 };

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;

export interface JsonLimitViolation {
  limit: "max_depth" | "max_string_length";
  max: number;
  message: string;
}

/** The first limit `text` breaks, or undefined. Malformed JSON is left to the parser. */
export function jsonLimitViolation(
  text: string,
  limits: JsonLimits = DEFAULT_JSON_LIMITS,
): JsonLimitViolation | undefined {
  const { maxDepth, maxStringLength } = limits;
  // Fast path: a text shorter than both limits cannot break either.
  if (text.length <= maxDepth && text.length <= maxStringLength) return undefined;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i += 2;
        else if (d === QUOTE) break;
        else i++;
      }
      const length = i - start - 1;
      if (length > maxStringLength) {
        return {
          limit: "max_string_length",
          max: maxStringLength,
          message: `a string of ${length} characters at offset ${start} is over the limit of ${maxStringLength}`,
        };
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      if (depth > maxDepth) {
        return {
          limit: "max_depth",
          max: maxDepth,
          message: `JSON nested deeper than ${maxDepth} levels (at offset ${i})`,
        };
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return undefined;
}
