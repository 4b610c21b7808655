/**
 * `laxCoerced`: arguments a schema rejects by type, converted as pydantic's lax mode converts them
 * (numeric strings and booleans to numbers, integral numbers to integers, "true"/"false" to booleans);
 * anything else — an unconvertible value, a missing or extra field, nothing to convert — is not.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { laxCoerced } from "../../src/testing/lax-coercion.ts";

const schema = {
  type: "object",
  properties: {
    n: { type: "integer" },
    x: { type: "number" },
    flag: { type: "boolean" },
    name: { type: "string" },
  },
  additionalProperties: false,
};

test("wrong-typed values a lax validator converts are converted", () => {
  assert.deepEqual(laxCoerced(schema, { n: "42", name: "a" }), { n: 42, name: "a" });
  assert.deepEqual(laxCoerced(schema, { n: true }), { n: 1 });
  assert.deepEqual(laxCoerced(schema, { n: " -3 " }), { n: -3 });
  assert.deepEqual(laxCoerced(schema, { x: "0.5" }), { x: 0.5 });
  assert.deepEqual(laxCoerced(schema, { x: false }), { x: 0 });
  assert.deepEqual(laxCoerced(schema, { flag: "False" }), { flag: false });
  assert.deepEqual(laxCoerced(schema, { flag: 1 }), { flag: true });
});

test("what no lax validator converts is not", () => {
  assert.equal(laxCoerced(schema, { n: "4.5" }), undefined, "a fraction is no integer");
  assert.equal(laxCoerced(schema, { n: "forty" }), undefined);
  assert.equal(laxCoerced(schema, { n: [1] }), undefined);
  assert.equal(laxCoerced(schema, { n: null }), undefined);
  assert.equal(laxCoerced(schema, { name: 42 }), undefined, "pydantic does not turn numbers into strings");
  assert.equal(laxCoerced(schema, { flag: "maybe" }), undefined);
  assert.equal(laxCoerced(schema, { flag: 2 }), undefined);
  // nothing to convert: already of the declared types (or a field the schema does not type)
  assert.equal(laxCoerced(schema, { n: 3, extra: "x" }), undefined);
  assert.equal(laxCoerced(schema, null), undefined);
  assert.equal(laxCoerced(schema, ["n"]), undefined);
  assert.equal(laxCoerced({ type: "object" }, { n: "1" }), undefined);
});
