import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { wilson } from "../../src/stats/index.ts";
import { assertClose } from "./close.ts";

// Full-precision expectations come from the closed form (2x + z² ∓ z·sqrt(z² + 4x(1 − x/n))) / (2(n + z²))
// (a different arrangement from the implementation's centre ± half-width):
//   python3 -c "from statistics import NormalDist; import math; x,n,c=X,N,C;
//     z=NormalDist().inv_cdf(1-(1-c)/2); p=x/n; A=2*x+z*z; B=z*math.sqrt(z*z+4*x*(1-p)); C2=2*(n+z*z);
//     print(repr((A-B)/C2), repr((A+B)/C2))"
describe("wilson", () => {
  it("matches Newcombe (1998) Table I, method 3, to 4 decimals", () => {
    // Newcombe RG (1998) Stat Med 17:857–872, examples (a)–(d), Wilson score method.
    const published: [number, number, number, number][] = [
      [81, 263, 0.2553, 0.3662],
      [15, 148, 0.0624, 0.1605],
      [0, 20, 0, 0.1611],
      [1, 29, 0.0061, 0.1718],
    ];
    for (const [x, n, lo, hi] of published) {
      const r = wilson(x, n);
      assertClose(r.lo, lo, 5e-5, `${x}/${n} lo`);
      assertClose(r.hi, hi, 5e-5, `${x}/${n} hi`);
      assert.equal(r.estimate, x / n);
    }
  });

  it("matches the closed form at full precision, for any confidence", () => {
    const cases: [number, number, number, number, number][] = [
      [81, 263, 0.95, 0.2552885198782742, 0.36620957698280004], // python closed form above
      [15, 148, 0.95, 0.062386399530736276, 0.160487241723308], // python closed form above
      [1, 29, 0.95, 0.0061132142927626506, 0.17175521879320285], // python closed form above
      [5, 10, 0.99, 0.18422551824723551, 0.8157744817527646], // python closed form above
      [5, 10, 0.5, 0.3956999154246878, 0.6043000845753123], // python closed form above
      [37, 50, 0.9, 0.6275387029219313, 0.827821367900659], // python closed form above
    ];
    for (const [x, n, c, lo, hi] of cases) {
      const r = wilson(x, n, c);
      assertClose(r.lo, lo, 1e-13, `${x}/${n}@${c} lo`);
      assertClose(r.hi, hi, 1e-13, `${x}/${n}@${c} hi`);
    }
  });

  it("handles 0 successes and all successes without collapsing", () => {
    const none = wilson(0, 20);
    assert.deepEqual([none.estimate, none.lo], [0, 0]);
    assertClose(none.hi, 0.16112515805281932, 1e-13); // python closed form above, x=0, n=20
    const all = wilson(29, 29);
    assert.deepEqual([all.estimate, all.hi], [1, 1]);
    assertClose(all.lo, 0.8830302015002593, 1e-13); // python closed form above, x=29, n=29
    const one = wilson(1, 1);
    assertClose(one.lo, 0.2065493143772375, 1e-13); // python closed form above, x=1, n=1
    assert.equal(one.hi, 1);
  });

  it("gives estimate 0 and [0, 1] for n = 0", () => {
    assert.deepEqual(wilson(0, 0), { estimate: 0, lo: 0, hi: 1 });
  });

  it("throws a RangeError for bad input", () => {
    assert.throws(() => wilson(5, 4), RangeError);
    assert.throws(() => wilson(-1, 4), RangeError);
    assert.throws(() => wilson(1.5, 4), RangeError);
    assert.throws(() => wilson(1, Number.NaN), RangeError);
    assert.throws(() => wilson(1, 4, 0), RangeError);
    assert.throws(() => wilson(1, 4, 1), RangeError);
    assert.throws(() => wilson(0, 0, 2), RangeError);
  });
});
