import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import {
  canonicalBytes,
  canonicalJson,
  canonicalOnce,
  constantArray,
  hashJson,
  hashJsonParts,
} from "../../src/core/hash.ts";
import { Rng } from "../../src/core/rng.ts";

/** The plain reference: sort every object's keys, JSON.stringify every leaf. canonicalJson must match it. */
function reference(value: unknown): string {
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
        return `[${value.map((item) => (item === undefined ? "null" : reference(item))).join(",")}]`;
      }
      const obj = value as Record<string, unknown>;
      const parts: string[] = [];
      for (const key of Object.keys(obj).sort()) {
        const item = obj[key];
        if (item === undefined || typeof item === "function") continue;
        parts.push(`${JSON.stringify(key)}:${reference(item)}`);
      }
      return `{${parts.join(",")}}`;
    }
    default:
      return "null";
  }
}

const AWKWARD_STRINGS = [
  "",
  "plain",
  'quote " inside',
  "back\\slash",
  "new\nline\ttab\r\u0000\u001f\u007f",
  "ünïcödé ✓ 漢字",
  "emoji 😀 pair",
  "lone \ud800 high",
  "lone \udfff low",
  "\u2028\u2029 separators",
  "__proto__",
  "10",
  "2",
  "a",
  "B",
];
const AWKWARD_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.1,
  1e21,
  1e-7,
  123456789.125,
  Number.MAX_SAFE_INTEGER,
  NaN,
  Infinity,
  -Infinity,
];

function randomValue(rng: Rng, depth: number): unknown {
  const kind = rng.int(0, depth > 3 ? 5 : 8);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return rng.bool();
    case 2:
      return rng.pick(AWKWARD_NUMBERS);
    case 3:
      return rng.int(-1000, 1000) / 8;
    case 4:
      return rng.pick(AWKWARD_STRINGS);
    case 5:
      return rng.pick([undefined, () => 1, Symbol("s"), rng.id(5)]);
    case 6: {
      const n = rng.int(0, 4);
      return Array.from({ length: n }, () => randomValue(rng, depth + 1));
    }
    default: {
      const obj: Record<string, unknown> = {};
      const n = rng.int(0, 6);
      for (let i = 0; i < n; i++) {
        const key = rng.bool(0.3) ? rng.pick(AWKWARD_STRINGS) : rng.id(rng.int(1, 4));
        if (key === "__proto__")
          Object.defineProperty(obj, key, {
            value: randomValue(rng, depth + 1),
            enumerable: true,
            configurable: true,
            writable: true,
          });
        else obj[key] = randomValue(rng, depth + 1);
      }
      return obj;
    }
  }
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

test("canonicalJson and hashJson match the sort-and-stringify reference on awkward values", () => {
  const rng = Rng.seeded(8, "hash-fuzz");
  for (let i = 0; i < 5000; i++) {
    const value = randomValue(rng, 0);
    const expected = reference(value);
    assert.equal(canonicalJson(value), expected, `value #${i}`);
    assert.equal(hashJson(value, 64), sha256(expected), `hash of value #${i}`);
    assert.equal(Buffer.from(canonicalBytes(value)).toString("utf8"), expected, `bytes of value #${i}`);
    if (typeof value === "object" && value !== null)
      assert.equal(canonicalOnce({ value }).text, reference({ value }));
  }
});

test("long strings, many keys and big values hash as their canonical JSON", () => {
  const rng = Rng.seeded(9, "hash-big");
  const long = (unit: string, n: number) => unit.repeat(n);
  const values: unknown[] = [
    long("a", 20_000),
    long("ü", 9_000),
    long("漢", 9_000),
    long("😀", 5_000),
    `${long("x", 3_000)}"\\n${long("y", 3_000)}`,
    `${long("x", 6_000)}\ud800`,
    { [long("k", 10_000)]: long("v", 10_000) },
    Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key${(i * 37) % 50}`, i])),
    Array.from({ length: 4000 }, () => randomValue(rng, 2)),
    {
      nested: Array.from({ length: 300 }, (_, i) => ({
        i,
        text: rng.pick(AWKWARD_STRINGS),
        big: long("z", i * 10),
      })),
    },
  ];
  for (const [i, value] of values.entries()) {
    const expected = reference(value);
    assert.equal(canonicalJson(value), expected, `value #${i}`);
    assert.equal(hashJson(value, 64), sha256(expected), `hash of value #${i}`);
    assert.equal(Buffer.from(canonicalBytes(value)).toString("utf8"), expected, `bytes of value #${i}`);
    if (typeof value === "object" && value !== null)
      assert.equal(canonicalOnce({ value }).text, reference({ value }));
  }
});

test("canonicalJson sorts keys at every level and is independent of insertion order", () => {
  const a = { b: 1, a: { d: [3, { z: 1, y: 2 }], c: "x" }, "10": true, "2": false };
  const b = { "2": false, a: { c: "x", d: [3, { y: 2, z: 1 }] }, b: 1, "10": true };
  assert.equal(canonicalJson(a), '{"10":true,"2":false,"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
  assert.equal(canonicalJson(a), canonicalJson(b));
  assert.equal(
    canonicalJson({ u: undefined, f: () => 1, n: NaN, list: [undefined, Infinity] }),
    '{"list":[null,null],"n":null}',
  );
});

test("hashJson is sha256 of the canonical JSON, truncated", () => {
  const value = { tool: "get_case", args: { case_id: "C-01234" }, text: 'say "hi"\n' };
  const full = createHash("sha256").update(reference(value)).digest("hex");
  assert.equal(hashJson(value), full.slice(0, 16));
  assert.equal(hashJson(value, 64), full);
});

test("hashJson of a value far longer than one hash chunk equals sha256 of its canonical JSON", () => {
  const rng = Rng.seeded(3, "hash-long");
  const steps = Array.from({ length: 3000 }, (_, i) => ({
    index: i,
    text: rng.pick(AWKWARD_STRINGS),
    nested: randomValue(rng, 1),
  }));
  const value = { steps, tail: "ünïcödé 😀" };
  assert.equal(hashJson(value, 64), createHash("sha256").update(reference(value)).digest("hex"));
});

test("canonicalOnce is the canonical JSON of its value, and the writers copy it in place", () => {
  const task = { id: "t", params: { b: [1, { d: 2, c: 3 }], a: "x ünï 😀" }, big: "w".repeat(12_000) };
  const once = canonicalOnce(task);
  assert.equal(once.text, reference(task));
  assert.equal(canonicalOnce(task), once);
  assert.equal(canonicalJson({ z: 1, task: once }), reference({ z: 1, task }));
  assert.equal(hashJson({ z: 1, task: once }, 64), sha256(reference({ z: 1, task })));
});

test("a constant array is written from its remembered text", () => {
  const tools = constantArray([
    { name: "b", schema: { type: "object" } },
    { name: "a", schema: {} },
  ]);
  const value = { tools, initial: { tools } };
  assert.equal(canonicalJson(value), reference(value));
  assert.equal(hashJson(value, 64), sha256(reference(value)));
});

test("a value written part by part hashes as the value itself", () => {
  const big = "w".repeat(12_000);
  const steps = [
    { action: { tool: "t", args: { b: 1, a: [1, undefined, "ü"] } }, reward: 0, t: undefined, z: big },
    { action: { tool: "u", args: {} }, reward: Number.NaN, t: 2, z: "x" },
  ];
  const value = { head: undefined, mid: "m", steps, tail: { y: 1, x: [] } };
  const parts = hashJsonParts((w) => {
    w.beginObject();
    w.member("head", undefined);
    w.member("mid", "m");
    w.memberKey("steps");
    w.beginArray();
    for (const s of steps) {
      w.beginObject();
      w.member("action", s.action);
      w.member("reward", s.reward);
      w.member("t", s.t);
      w.member("z", s.z);
      w.endObject();
    }
    w.item(undefined);
    w.endArray();
    w.member("tail", value.tail);
    w.endObject();
  }, 64);
  assert.equal(parts, sha256(reference({ ...value, steps: [...steps, null] })));
  assert.equal(parts, hashJson({ ...value, steps: [...steps, undefined] }, 64));
});
