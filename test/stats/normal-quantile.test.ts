import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalQuantile, twoSidedZ } from "../../src/stats/index.ts";
import { assertClose, assertRelClose } from "./close.ts";

// Expected values, computed without AS 241 from Φ(x) = erfc(−x/√2)/2:
//   Newton:    python3 -c "import math; p=P; x=0.0; exec('for _ in range(100): x -= (0.5*math.erfc(-x/math.sqrt(2))-p)/(math.exp(-x*x/2)/math.sqrt(2*math.pi))'); print(repr(x))"
//   bisection: python3 -c "import math; p=P; lo,hi=-40.0,0.0; exec('for _ in range(200):\n m=(lo+hi)/2\n if 0.5*math.erfc(-m/math.sqrt(2))<p: lo=m\n else: hi=m'); print(repr(lo))"
describe("normalQuantile", () => {
  const cases: [number, number][] = [
    [0.975, 1.9599639845400536], // Newton on erfc
    [0.995, 2.5758293035489004], // Newton on erfc
    [0.9, 1.2815515655446008], // Newton on erfc
    [0.999, 3.0902323061678176], // Newton on erfc
    [0.8, 0.8416212335729142], // Newton on erfc
    [0.3, -0.5244005127080409], // Newton on erfc
    [0.025, -1.9599639845400543], // Newton on erfc
    [1e-5, -4.2648907939228256], // bisection on erfc
    [1e-10, -6.3613409024040575], // bisection on erfc (AS 241's intermediate region, r <= 5)
    [1e-300, -37.04709629936121], // bisection on erfc (AS 241's far-tail region, r > 5)
  ];
  for (const [p, expected] of cases) {
    it(`Φ⁻¹(${p}) = ${expected}`, () => assertRelClose(normalQuantile(p), expected, 1e-14));
  }

  it("is exactly 0 at the median and antisymmetric", () => {
    assert.equal(normalQuantile(0.5), 0);
    for (const p of [0.01, 0.2, 0.4, 0.49]) assertClose(normalQuantile(p), -normalQuantile(1 - p), 1e-14);
  });

  it("throws a RangeError outside (0, 1)", () => {
    for (const p of [0, 1, -0.1, 1.1, Number.NaN]) assert.throws(() => normalQuantile(p), RangeError);
  });
});

describe("twoSidedZ", () => {
  it("gives the familiar critical values", () => {
    // 1.959963984540054 and 2.5758293035489 are the textbook z for 95% and 99% (Newton on erfc above).
    assertRelClose(twoSidedZ(0.95), 1.9599639845400536, 1e-14);
    assertRelClose(twoSidedZ(0.99), 2.5758293035489004, 1e-14);
    assertRelClose(twoSidedZ(0.8), 1.2815515655446008, 1e-14);
  });

  it("throws a RangeError for a confidence outside (0, 1)", () => {
    for (const c of [0, 1, 95, -0.5]) assert.throws(() => twoSidedZ(c), RangeError);
  });
});
