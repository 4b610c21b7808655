/** Plain JSON data: what every saved state, record and spec is made of. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Deep copy of JSON data (structuredClone keeps the same shape for plain data and is fast). */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}
