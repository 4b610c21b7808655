import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { binomialCdf, choose, chooseRatio, logChoose } from "../../src/stats/index.ts";
import { assertClose, assertRelClose } from "./close.ts";

describe("choose", () => {
  it("is exact below 2^53", () => {
    // python3 -c "import math; print(math.comb(52,5), math.comb(50,25))"
    assert.equal(choose(52, 5), 2598960);
    assert.equal(choose(50, 25), 126410606437752);
    assert.equal(choose(10, 0), 1);
    assert.equal(choose(10, 10), 1);
    assert.equal(choose(0, 0), 1);
  });

  it("is 0 for k > n and throws a RangeError for negative or fractional arguments", () => {
    assert.equal(choose(3, 4), 0);
    assert.throws(() => choose(-1, 0), RangeError);
    assert.throws(() => choose(5, 2.5), RangeError);
  });
});

describe("logChoose", () => {
  it("matches ln of Python's exact math.comb", () => {
    // python3 -c "import math; print(repr(math.log(math.comb(50,25))), repr(math.log(math.comb(1000,500))), repr(math.log(math.comb(100000,30000))))"
    assertRelClose(logChoose(50, 25), 32.47055650581199, 1e-13);
    assertRelClose(logChoose(1000, 500), 689.4672615678512, 1e-13);
    assertRelClose(logChoose(100000, 30000), 61080.535124962866, 1e-13);
    assert.equal(logChoose(7, 0), 0);
    assert.equal(logChoose(7, 7), 0);
    assert.equal(logChoose(3, 4), Number.NEGATIVE_INFINITY);
  });
});

describe("chooseRatio", () => {
  it("computes C(a,k)/C(b,k) without overflow", () => {
    // python3 -c "from math import comb; from fractions import Fraction as F; print(repr(float(F(comb(1900,300),comb(2000,300)))))"
    // (C(2000,300) ≈ 1e340 overflows a double; the product form does not.)
    assertRelClose(chooseRatio(1900, 2000, 300), 5.5599446717900005e-8, 1e-12);
    assert.equal(chooseRatio(3, 10, 4), 0);
    assert.equal(chooseRatio(10, 10, 10), 1);
    assert.equal(chooseRatio(4, 10, 0), 1);
  });

  it("throws a RangeError for a > b or k > b", () => {
    assert.throws(() => chooseRatio(11, 10, 2), RangeError);
    assert.throws(() => chooseRatio(5, 10, 11), RangeError);
  });
});

describe("binomialCdf", () => {
  it("matches exact rational sums", () => {
    // python3 -c "from math import comb; from fractions import Fraction as F
    //   cdf=lambda x,n,p: float(sum(comb(n,i)*F(p)**i*(1-F(p))**(n-i) for i in range(x+1))); print(repr(cdf(X,N,'P')))"
    const cases: [number, number, number, number][] = [
      [5, 20, 0.3, 0.4163708294474814],
      [85, 100, 0.9, 0.07257296526488076],
      [95, 100, 0.9, 0.9762889173365232], // above the mean: computed as 1 − upper tail
      [3, 1000, 0.01, 0.01007265477201438],
      [0, 10, 0.5, 0.0009765625],
      [7, 10, 0.5, 0.9453125],
      [50, 100, 0.5, 0.5397946186935894],
      [2400, 5000, 0.5, 0.002441824868758759],
    ];
    for (const [x, n, p, expected] of cases) {
      assertRelClose(binomialCdf(x, n, p), expected, 1e-11, `P(Bin(${n},${p}) <= ${x})`);
    }
  });

  it("handles the edges", () => {
    assert.equal(binomialCdf(-1, 10, 0.5), 0);
    assert.equal(binomialCdf(10, 10, 0.5), 1);
    assert.equal(binomialCdf(0, 10, 0), 1);
    assert.equal(binomialCdf(9, 10, 1), 0);
    assert.equal(binomialCdf(0, 0, 0.3), 1);
    // True value ≈ 1e-1498 (python3 -c "import math; print(math.log10(sum(math.comb(5000,i) for i in range(3)))-5000*math.log10(2))"): underflows to 0.
    assert.equal(binomialCdf(2, 5000, 0.5), 0);
    assertClose(binomialCdf(2.7, 10, 0.5), binomialCdf(2, 10, 0.5), 0);
  });

  it("throws a RangeError for bad n or p", () => {
    assert.throws(() => binomialCdf(1, -1, 0.5), RangeError);
    assert.throws(() => binomialCdf(1, 10, 1.5), RangeError);
    assert.throws(() => binomialCdf(Number.NaN, 10, 0.5), RangeError);
  });
});
