/**
 * Every executable example of docs/worlds/device-support.vectors.json, one test per vector, each run on a
 * few seeds at the vector's difficulty (1): the world must agree with every step's `expect` and
 * reach the vector's verdict (`passed` and the set of violation codes).
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, test } from "node:test";
import { inspectionOf } from "../../../src/core/capabilities.ts";
import type { JsonObject, JsonValue } from "../../../src/core/json.ts";
import { defaultGym } from "../../../src/gym/index.ts";
import {
  readPath,
  resolvePlaceholders,
  runVector,
  type VectorDefaults,
  type VectorFile,
  violationCodes,
} from "../../support/vectors.ts";

const file = new URL("../../../docs/worlds/device-support.vectors.json", import.meta.url);
const vectors = JSON.parse(fs.readFileSync(file, "utf8")) as VectorFile;
const world = defaultGym().registry.world(vectors.world);
const SEEDS = [0, 1, 2, 7, 1234];

/** `$model` / `$address`: the case's device model and its customer's first address. */
const defaults: VectorDefaults = (env, context) => {
  const view = inspectionOf(env).view() as unknown as {
    cases: JsonObject[];
    devices: JsonObject[];
    customers: { customer_id: string; addresses: { address_id: string }[] }[];
  };
  const c = view.cases.find((x) => x.case_id === context.case_id);
  if (!c) return {};
  const device = view.devices.find((d) => d.device_id === c.device_id);
  const customer = view.customers.find((x) => x.customer_id === c.customer_id);
  return {
    model: device?.model as JsonValue | undefined,
    address: customer?.addresses[0]?.address_id,
  };
};

describe("vector interpreter", () => {
  test("dot paths read numeric indexes and .length", () => {
    const value = { a: { list: [{ id: "x" }, { id: "y" }] }, s: "abc" };
    assert.equal(readPath(value, "a.list.1.id"), "y");
    assert.equal(readPath(value, "a.list.length"), 2);
    assert.equal(readPath(value, "s.length"), 3);
    assert.equal(readPath(value, "a.missing.0"), undefined);
    assert.equal(readPath(value, "a.list.x"), undefined);
  });

  test('placeholders resolve, "$a|$b" falls back when $a is unbound or null', () => {
    const b = { a: null, b: "B", c: "C" };
    assert.deepEqual(resolvePlaceholders({ x: "$a|$b", y: ["$c"], z: "plain", n: 3 }, b), {
      x: "B",
      y: ["C"],
      z: "plain",
      n: 3,
    });
    assert.equal(resolvePlaceholders("$c|$b", b), "C");
    assert.throws(() => resolvePlaceholders("$nope|$a", b), /none of/);
  });
});

describe(`spec vectors of ${vectors.world}`, () => {
  test("the file holds vectors for this world, each with steps and a verdict", () => {
    assert.equal(world.id, vectors.world);
    assert.ok(vectors.vectors.length >= 20, `only ${vectors.vectors.length} vectors`);
    const families = new Set(world.families.map((f) => f.name));
    for (const v of vectors.vectors) {
      assert.ok(families.has(v.family), `${v.name}: unknown family ${v.family}`);
      assert.ok(v.steps.length > 0, `${v.name}: no steps`);
    }
    // every family of the spec has at least one vector
    assert.deepEqual(new Set(vectors.vectors.map((v) => v.family)), families);
  });

  for (const vector of vectors.vectors) {
    test(vector.name, async () => {
      for (const seed of SEEDS) {
        const run = await runVector(world, vector, { seed, defaults });
        const where = `seed ${seed}: ${JSON.stringify(run.verdict)}`;
        assert.equal(run.verdict.passed, vector.verdict.passed, `passed, ${where}`);
        assert.deepEqual(
          violationCodes(run.verdict),
          [...new Set(vector.verdict.violations)].sort(),
          `violation codes, ${where}`,
        );
      }
    });
  }
});
