import assert from "node:assert/strict";
import { test } from "node:test";
import { type PairedCell, pairedBootstrap, pairedClusterBootstrap } from "../../src/stats/index.ts";

const cell = (outer: string, inner: string, a: number, b: number, weight = 1): PairedCell => ({
  outer,
  inner,
  a,
  b,
  weight,
});

test("pairedClusterBootstrap: the estimate is the weighted mean of b - a; the same seed gives the same interval", () => {
  const cells = [cell("1", "x", 0.5, 1, 2), cell("1", "y", 0, 0, 2), cell("2", "x", 0.5, 0.5, 4)];
  const r = pairedClusterBootstrap(cells, { iterations: 2000 });
  assert.equal(r.estimate, (2 * 0.5 + 0 + 0) / 8);
  assert.deepEqual(pairedClusterBootstrap(cells, { iterations: 2000 }), r);
  assert.ok(r.lo <= r.estimate && r.estimate <= r.hi);
});

test("pairedClusterBootstrap: a constant difference has a zero-width interval (the pairing is kept)", () => {
  // a and b vary a lot between cells, their difference does not: an unpaired interval would be wide
  const cells = [0.1, 0.2, 0.9, 0.4, 0.95].flatMap((x, i) => [
    cell(String(i), "f", x - 0.1, x),
    cell(String(i), "g", 1 - x, 1.1 - x),
  ]);
  const r = pairedClusterBootstrap(cells, { iterations: 1000 });
  assert.ok(Math.abs(r.estimate - 0.1) < 1e-12);
  assert.ok(Math.abs(r.lo - 0.1) < 1e-9 && Math.abs(r.hi - 0.1) < 1e-9, JSON.stringify(r));
});

test("pairedClusterBootstrap: correlated cells within a seed widen the interval beyond the cell-level bootstrap", () => {
  // 4 seeds x 6 families; each seed's families all move together (+0.5 or -0.3): the seed is the unit
  const effects = [0.5, -0.3, 0.5, -0.3];
  const cells = effects.flatMap((d, s) =>
    Array.from({ length: 6 }, (_, f) => cell(String(s), `f${f}`, 0.3, 0.3 + d)),
  );
  const nested = pairedClusterBootstrap(cells, { iterations: 4000 });
  const flat = pairedBootstrap(
    cells.map((c) => ({ a: c.b, b: c.a })),
    { iterations: 4000 },
  );
  assert.ok(Math.abs(nested.estimate - 0.1) < 1e-12);
  assert.ok(
    nested.hi - nested.lo > 1.5 * (flat.hi - flat.lo),
    `${JSON.stringify(nested)} vs ${JSON.stringify(flat)}`,
  );
});

test("pairedClusterBootstrap: bad input is refused", () => {
  assert.throws(() => pairedClusterBootstrap([]), RangeError);
  assert.throws(() => pairedClusterBootstrap([cell("1", "x", Number.NaN, 0)]), RangeError);
  assert.throws(() => pairedClusterBootstrap([cell("1", "x", 0, 0, -1)]), RangeError);
  assert.throws(() => pairedClusterBootstrap([cell("1", "x", 0, 0)], { confidence: 1 }), RangeError);
});
