import assert from "node:assert/strict";
import { test } from "node:test";
import { cloneJson } from "../../src/core/json.ts";
import { Rng } from "../../src/core/rng.ts";

function randomPlain(rng: Rng, depth: number): unknown {
  switch (rng.int(0, depth > 3 ? 4 : 6)) {
    case 0:
      return null;
    case 1:
      return rng.pick([true, false, undefined, 0, -0, 1.5, NaN, "", "ünï 😀", "10"]);
    case 2:
      return rng.int(-1e6, 1e6);
    case 3:
      return rng.id(rng.int(0, 8));
    case 4:
      return rng.bool() ? [] : {};
    case 5:
      return Array.from({ length: rng.int(0, 4) }, () => randomPlain(rng, depth + 1));
    default: {
      const obj: Record<string, unknown> = {};
      for (let i = rng.int(0, 5); i > 0; i--)
        obj[rng.pick(["a", "b", "10", "2", rng.id(3)])] = randomPlain(rng, depth + 1);
      return obj;
    }
  }
}

test("cloneJson gives what structuredClone gives on plain data, as a copy", () => {
  const rng = Rng.seeded(5, "clone-fuzz");
  for (let i = 0; i < 3000; i++) {
    const value = randomPlain(rng, 0);
    const copy = cloneJson(value);
    assert.deepStrictEqual(copy, structuredClone(value), `value #${i}`);
    if (typeof value === "object" && value !== null) assert.notEqual(copy, value);
  }
  const nested = { a: { b: [{ c: 1 }] } };
  const copy = cloneJson(nested);
  copy.a.b[0].c = 2;
  assert.equal(nested.a.b[0].c, 1);
  assert.deepStrictEqual(Object.keys(cloneJson({ b: 1, 10: 2, a: 3, 2: 4 })), ["2", "10", "b", "a"]);
});

test("cloneJson hands anything but plain data to structuredClone", () => {
  const date = new Date(0);
  assert.ok(cloneJson({ when: date }).when instanceof Date);
  assert.ok(cloneJson([new Map([[1, 2]])])[0] instanceof Map);
  const cyclic: Record<string, unknown> = { name: "loop" };
  cyclic.self = cyclic;
  const c = cloneJson(cyclic);
  assert.equal(c.self, c);
  const proto = JSON.parse('{"__proto__": {"x": 1}}');
  assert.deepStrictEqual(Object.getOwnPropertyDescriptor(cloneJson(proto), "__proto__")?.value, { x: 1 });
  // biome-ignore lint/suspicious/noSparseArray: a hole is what is being tested
  const holes = [1, , 3];
  assert.equal(1 in cloneJson(holes), false);
  assert.throws(() => cloneJson({ f: () => 1 }), { name: "DataCloneError" });
  assert.throws(() => cloneJson({ s: Symbol("s") }), { name: "DataCloneError" });
  class Point {
    constructor(readonly x: number) {}
  }
  const p = cloneJson({ p: new Point(1) }).p;
  assert.equal(Object.getPrototypeOf(p), Object.prototype);
  assert.equal(p.x, 1);
});
