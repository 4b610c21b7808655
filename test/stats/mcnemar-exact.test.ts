import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mcnemarExact } from "../../src/stats/index.ts";
import { assertClose, assertRelClose } from "./close.ts";

// Expected p-values are exact: min(1, 2·P(X <= min(b,c))), X ~ Bin(b+c, 1/2), with rational arithmetic:
//   python3 -c "from math import comb; from fractions import Fraction as F; b,c=B,C; N=b+c
//     print(repr(float(min(F(1), 2*sum(F(comb(N,i),2**N) for i in range(min(b,c)+1))))))"
describe("mcnemarExact", () => {
  it("matches exact binomial sums", () => {
    const cases: [number, number, number][] = [
      [0, 5, 0.0625], // 2/32
      [5, 0, 0.0625],
      [6, 0, 0.03125], // 2/64
      [2, 8, 0.109375], // 2·56/1024
      [8, 2, 0.109375],
      [10, 2, 0.03857421875],
      [12, 2, 0.012939453125],
      [0, 10, 0.001953125],
      [20, 30, 0.20263875106454066],
      [100, 130, 0.055613577781392386],
      [1000, 1100, 0.030720707864242296],
      [4000, 4200, 0.027972423571324383],
      [40, 0, 1.8189894035458565e-12], // 2^-39
    ];
    for (const [b, c, p] of cases) assertRelClose(mcnemarExact(b, c), p, 1e-10, `b=${b}, c=${c}`);
  });

  it("caps at 1", () => {
    assert.equal(mcnemarExact(3, 3), 1); // 2·P(X<=3 | Bin(6,.5)) = 2·42/64 > 1
    assert.equal(mcnemarExact(1, 0), 1); // 2·1/2
    assertClose(mcnemarExact(50, 50), 1, 0);
  });

  it("gives p = 1 when there are no discordant pairs", () => {
    assert.equal(mcnemarExact(0, 0), 1);
  });

  it("throws a RangeError for negative or fractional counts", () => {
    assert.throws(() => mcnemarExact(-1, 2), RangeError);
    assert.throws(() => mcnemarExact(1, 2.5), RangeError);
    assert.throws(() => mcnemarExact(Number.NaN, 2), RangeError);
  });
});
