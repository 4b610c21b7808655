import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { fastCheckOf } from "../../src/core/fast-args.ts";
import { Rng } from "../../src/core/rng.ts";
import { parseToolArgs } from "../../src/core/tool.ts";
import { TOOLS } from "../../src/worlds/device-support/tools.ts";

const SYNTHETIC = {
  name: "synthetic",
  input: z
    .object({
      s: z.string().min(2).max(5),
      n: z.number().int().min(-3).max(3),
      f: z.number().gt(0).lt(1).optional(),
      e: z.enum(["a", "b"]),
      list: z.array(z.string().min(1)),
    })
    .strict()
    .refine((v) => v.s !== "no", { message: "not no" }),
};

const STRINGS = ["", "a", "ab", "abcde", "abcdef", "x".repeat(201), "C-01234", "no", "ünï😀"];
const NUMBERS = [0, -0, 1, 2, 3, 4, -3, -4, 0.5, 1.5, 3600, 3601, NaN, Infinity, -Infinity, 2 ** 53];

/** Anything at all for a field: mostly plausible, often wrong. */
function anyValue(rng: Rng, depth = 0): unknown {
  switch (rng.int(0, depth > 1 ? 4 : 6)) {
    case 0:
    case 1:
      return rng.pick(STRINGS);
    case 2:
      return rng.pick(NUMBERS);
    case 3:
      return rng.pick([undefined, null, true, "a", "b", "denied", "no_action", "bogus"]);
    case 4:
      return rng.pick(["replacement_created", "escalated", ""]);
    case 5:
      return Array.from({ length: rng.int(0, 3) }, () => anyValue(rng, depth + 1));
    default:
      return { nested: anyValue(rng, depth + 1) };
  }
}

function randomArgs(rng: Rng, keys: string[]): unknown {
  const roll = rng.int(0, 20);
  if (roll === 0) return rng.pick([null, undefined, "x", 1, [], new Date(0)]);
  const obj: Record<string, unknown> = roll === 1 ? Object.create(null) : {};
  for (const key of rng.shuffle(keys)) if (rng.bool(0.85)) obj[key] = anyValue(rng);
  if (rng.bool(0.1)) obj[rng.pick(["extra", "reason2", "__proto__"])] = "x";
  if (roll === 2) return Object.assign(Object.create({ inherited: 1 }), obj);
  return obj;
}

/** Each tool's keys, and one valid call of it. */
function shapeKeys(schema: z.ZodType): string[] {
  const def = (schema as unknown as { _zod: { def: { shape?: Record<string, unknown> } } })._zod.def;
  return Object.keys(def.shape ?? {});
}

test("every device-support tool schema compiles to a fast check", () => {
  for (const tool of TOOLS) assert.ok(fastCheckOf(tool.input), tool.name);
  assert.ok(fastCheckOf(SYNTHETIC.input));
});

test("whatever the fast check accepts, zod accepts with the same value (keys in the same order)", () => {
  const rng = Rng.seeded(11, "fast-args");
  let accepted = 0;
  for (const tool of [...TOOLS, SYNTHETIC]) {
    const keys = shapeKeys(tool.input);
    const fast = fastCheckOf(tool.input)!;
    for (let i = 0; i < 3000; i++) {
      const args = randomArgs(rng, keys);
      const got = fast(args);
      if (got === undefined) continue;
      accepted++;
      const zod = tool.input.safeParse(args);
      assert.ok(
        zod.success,
        `${tool.name}: fast check accepted what zod rejects: ${String(JSON.stringify(args))}`,
      );
      assert.deepStrictEqual(got.value, zod.data, tool.name);
      assert.deepStrictEqual(Object.keys(got.value as object), Object.keys(zod.data as object), tool.name);
      assert.notEqual(got.value, args, "a new object, as zod returns");
    }
  }
  assert.ok(accepted > 500, `the fast path is taken (${accepted} accepted)`);
});

test("parseToolArgs answers as zod does, valid or not", () => {
  const rng = Rng.seeded(12, "parse-tool-args");
  for (const tool of [...TOOLS, SYNTHETIC]) {
    const keys = shapeKeys(tool.input);
    for (let i = 0; i < 1000; i++) {
      const args = randomArgs(rng, keys);
      const got = parseToolArgs(tool, args);
      const zod = tool.input.safeParse(args);
      assert.equal(got.ok, zod.success, tool.name);
      if (got.ok && zod.success) assert.deepStrictEqual(got.value, zod.data);
    }
  }
  const bad = parseToolArgs(TOOLS.find((t) => t.name === "wait")!, { seconds: 0 });
  assert.equal(bad.ok, false);
  if (!bad.ok) assert.match(bad.error.message, /^wait: argument `seconds`: /);
});
