/**
 * What a lax validator makes of arguments its JSON Schema rejects by type. Python servers validate
 * with pydantic, whose default (lax) mode converts a value of the wrong type when the conversion is
 * unambiguous: `"42"` or `true` to the integer a field declares, `3.0` to `3`, `"false"` to `false`.
 * A foreign server that accepts such a call has not accepted malformed input: it read it as the
 * value the schema asks for.
 */
import type { JsonObject, JsonValue } from "../core/json.ts";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const NUMERIC = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;
const TRUE = new Set(["true", "1", "yes", "on", "t", "y"]);
const FALSE = new Set(["false", "0", "no", "off", "f", "n"]);

/** `value` as the declared `type` by a lax conversion, or undefined when there is none. */
function convert(value: JsonValue, type: string): JsonValue | undefined {
  switch (type) {
    case "integer": {
      const n =
        typeof value === "boolean"
          ? Number(value)
          : typeof value === "string" && NUMERIC.test(value)
            ? Number(value)
            : value;
      return typeof n === "number" && Number.isInteger(n) ? n : undefined;
    }
    case "number": {
      if (typeof value === "boolean") return Number(value);
      return typeof value === "string" && NUMERIC.test(value) ? Number(value) : undefined;
    }
    case "boolean": {
      if (value === 0 || value === 1) return value === 1;
      if (typeof value !== "string") return undefined;
      const s = value.trim().toLowerCase();
      return TRUE.has(s) ? true : FALSE.has(s) ? false : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * `args` with each top-level value converted to its property's declared type where a lax validator
 * would convert it (values already of that type stay as they are); undefined when no value needed
 * converting or one could not be.
 */
export function laxCoerced(schema: unknown, args: unknown): JsonObject | undefined {
  if (!isObject(schema) || !isObject(schema.properties) || !isObject(args)) return undefined;
  const properties = schema.properties;
  const out: JsonObject = { ...(args as JsonObject) };
  let converted = false;
  for (const [key, value] of Object.entries(args as JsonObject)) {
    const prop = properties[key];
    if (!isObject(prop) || typeof prop.type !== "string") continue;
    if (ofType(value, prop.type)) continue;
    const to = convert(value, prop.type);
    if (to === undefined) return undefined;
    out[key] = to;
    converted = true;
  }
  return converted ? out : undefined;
}

function ofType(value: JsonValue, type: string): boolean {
  switch (type) {
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    case "string":
      return typeof value === "string";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    default:
      return true;
  }
}
