import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { passAtK, passHatK, passHatKInterval } from "../../src/stats/index.ts";
import { assertClose, assertRelClose } from "./close.ts";

// Expected values are exact rationals from Python's math.comb:
//   python3 -c "from math import comb; from fractions import Fraction as F
//     T=[(10,3),(10,0),(10,10),(8,5)]
//     pak=lambda T,k: sum(1-F(comb(n-c,k),comb(n,k)) for n,c in T)/len(T)
//     phk=lambda T,k: sum(F(comb(c,k),comb(n,k)) for n,c in T)/len(T)
//     print([(k, pak(T,k), phk(T,k)) for k in [1,2,3,5,8]])"
const tasks = [
  { n: 10, c: 3 },
  { n: 10, c: 0 },
  { n: 10, c: 10 },
  { n: 8, c: 5 },
];

describe("passAtK", () => {
  it("matches exact rational values", () => {
    assertClose(passAtK(tasks, 1), 77 / 160, 1e-15);
    assertClose(passAtK(tasks, 2), 1019 / 1680, 1e-15);
    assertClose(passAtK(tasks, 3), 113 / 168, 1e-15);
    assertClose(passAtK(tasks, 5), 35 / 48, 1e-15);
    assertClose(passAtK(tasks, 8), 3 / 4, 1e-15);
  });

  it("pass@1 is the mean per-task pass rate", () => {
    // (3/10 + 0 + 1 + 5/8) / 4 = 77/160
    assertClose(passAtK(tasks, 1), (0.3 + 0 + 1 + 0.625) / 4, 1e-15);
  });

  it("at k = n is 1 for any task with a pass and 0 otherwise", () => {
    assert.equal(passAtK([{ n: 5, c: 1 }], 5), 1);
    assert.equal(passAtK([{ n: 5, c: 0 }], 5), 0);
  });

  it("stays stable for large n", () => {
    // python3 -c "from math import comb; print(1 - comb(1000-1,500)/comb(1000,500))"  -> 0.5
    assertClose(passAtK([{ n: 1000, c: 1 }], 500), 0.5, 1e-12);
  });
});

describe("passHatK", () => {
  it("matches exact rational values", () => {
    assertClose(passHatK(tasks, 1), 77 / 160, 1e-15);
    assertClose(passHatK(tasks, 2), 299 / 840, 1e-15);
    assertClose(passHatK(tasks, 3), 997 / 3360, 1e-15);
    assertClose(passHatK(tasks, 5), 57 / 224, 1e-15);
    assertClose(passHatK(tasks, 8), 1 / 4, 1e-15);
  });

  it("at k = n is 1 only for tasks that always pass", () => {
    assert.equal(passHatK([{ n: 5, c: 5 }], 5), 1);
    assert.equal(passHatK([{ n: 5, c: 4 }], 5), 0);
    assert.equal(passHatK([{ n: 5, c: 0 }], 1), 0);
  });

  it("keeps tiny probabilities where factorials would overflow", () => {
    // python3 -c "from math import comb; from fractions import Fraction as F; print(repr(float(F(comb(150,50),comb(200,50)))), repr(float(F(comb(900,300),comb(1000,300)))), repr(float(F(comb(999,500),comb(1000,500)))))"
    assertRelClose(passHatK([{ n: 200, c: 150 }], 50), 4.435009220681606e-8, 1e-12);
    assertRelClose(passHatK([{ n: 1000, c: 900 }], 300), 3.211636086017562e-17, 1e-12);
    assertClose(passHatK([{ n: 1000, c: 999 }], 500), 0.5, 1e-12);
  });
});

describe("passAtK / passHatK input checks", () => {
  for (const [name, fn] of [
    ["passAtK", passAtK],
    ["passHatK", passHatK],
  ] as const) {
    it(`${name} throws a RangeError for k > n, k < 1, c > n, bad counts and no tasks`, () => {
      assert.throws(() => fn([{ n: 3, c: 1 }], 4), RangeError);
      assert.throws(
        () =>
          fn(
            [
              { n: 10, c: 1 },
              { n: 3, c: 1 },
            ],
            4,
          ),
        RangeError,
      );
      assert.throws(() => fn([{ n: 3, c: 1 }], 0), RangeError);
      assert.throws(() => fn([{ n: 3, c: 1 }], 1.5), RangeError);
      assert.throws(() => fn([{ n: 3, c: 4 }], 1), RangeError);
      assert.throws(() => fn([{ n: 3, c: -1 }], 1), RangeError);
      assert.throws(() => fn([{ n: 3.5, c: 1 }], 1), RangeError);
      assert.throws(() => fn([], 1), RangeError);
    });
  }
});

describe("passHatKInterval", () => {
  it("estimates passHatK, with a deterministic interval around it", () => {
    for (const k of [1, 2, 5, 8]) {
      const r = passHatKInterval(tasks, k);
      assertClose(r.estimate, passHatK(tasks, k), 1e-15);
      assert.ok(r.lo <= r.estimate && r.estimate <= r.hi, `k=${k}: ${JSON.stringify(r)}`);
      assert.ok(r.lo >= 0 && r.hi <= 1);
      assert.deepEqual(passHatKInterval(tasks, k), r);
    }
  });

  it("resamples whole tasks: 10 repeats of a task are not 10 independent trials", () => {
    // one task always passes, one never: 20 trials, but only two tasks of evidence
    const r = passHatKInterval(
      [
        { n: 10, c: 10 },
        { n: 10, c: 0 },
      ],
      1,
    );
    assertClose(r.estimate, 0.5, 1e-15);
    assert.equal(r.lo, 0);
    assert.equal(r.hi, 1);
    // identical tasks: no spread between tasks, a point interval
    const same = passHatKInterval(
      [
        { n: 4, c: 2 },
        { n: 4, c: 2 },
      ],
      2,
    );
    assertClose(same.lo, 1 / 6, 1e-15);
    assertClose(same.hi, 1 / 6, 1e-15);
  });

  it("throws as passHatK does", () => {
    assert.throws(() => passHatKInterval([], 1), RangeError);
    assert.throws(() => passHatKInterval([{ n: 2, c: 1 }], 3), RangeError);
  });
});
