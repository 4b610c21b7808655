import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sampleSizeForDifference } from "../../src/stats/index.ts";

// Each expected n is the ceiling of the formula, computed in Python, and is checked from the other
// direction: the normal-approximation power at n reaches the target and at n − 1 it does not.
//   unpaired: python3 -c "import math; from statistics import NormalDist as N; p1,p2,a,pw=P1,P2,A,PW
//     za=N().inv_cdf(1-a/2); zb=N().inv_cdf(pw); pb=(p1+p2)/2; d=abs(p1-p2)
//     n=(za*math.sqrt(2*pb*(1-pb))+zb*math.sqrt(p1*(1-p1)+p2*(1-p2)))**2/d**2
//     power=lambda m: N().cdf((d*math.sqrt(m)-za*math.sqrt(2*pb*(1-pb)))/math.sqrt(p1*(1-p1)+p2*(1-p2)))
//     print(n, math.ceil(n), power(math.ceil(n)), power(math.ceil(n)-1))"
//   paired (Connor 1987): same with n=(za*math.sqrt(psi)+zb*math.sqrt(psi-d*d))**2/d**2 and
//     power=lambda m: N().cdf((d*math.sqrt(m)-za*math.sqrt(psi))/math.sqrt(psi-d*d))
describe("sampleSizeForDifference, unpaired", () => {
  it("matches the pooled-variance two-proportion formula", () => {
    // 387.3385 -> 388 (power 0.80067 at 388, 0.79966 at 387)
    assert.equal(sampleSizeForDifference({ p1: 0.5, p2: 0.6 }), 388);
    assert.equal(sampleSizeForDifference({ p1: 0.6, p2: 0.5 }), 388);
    // 476.0072 -> 477 (power 0.90059 at 477, 0.89999 at 476)
    assert.equal(sampleSizeForDifference({ p1: 0.3, p2: 0.4, alpha: 0.05, power: 0.9 }), 477);
    // 436.5196 -> 437 (power 0.80053 at 437, 0.79943 at 436)
    assert.equal(sampleSizeForDifference({ p1: 0.7, p2: 0.8, alpha: 0.01 }), 437);
    // 4.7468 -> 5
    assert.equal(sampleSizeForDifference({ p1: 0.1, p2: 0.9, paired: false }), 5);
  });

  it("applies the Fleiss–Tytun–Ury continuity correction on request", () => {
    // python3: n=387.33851669903584; print(n/4*(1+math.sqrt(1+4/(n*0.1)))**2)  -> 407.0929 -> 408
    assert.equal(sampleSizeForDifference({ p1: 0.5, p2: 0.6, continuityCorrection: true }), 408);
  });
});

describe("sampleSizeForDifference, paired (Connor 1987)", () => {
  it("matches the discordant-proportion formula", () => {
    // 154.5986 -> 155 (power 0.80103 at 155, 0.79845 at 154)
    assert.equal(sampleSizeForDifference({ p1: 0.5, p2: 0.6, paired: true, discordant: 0.2 }), 155);
    assert.equal(sampleSizeForDifference({ p1: 0.6, p2: 0.5, paired: true, discordant: 0.2 }), 155);
    // 100.8539 -> 101 (power 0.90042 at 101, 0.89748 at 100)
    assert.equal(
      sampleSizeForDifference({ p1: 0.7, p2: 0.8, alpha: 0.05, power: 0.9, paired: true, discordant: 0.1 }),
      101,
    );
    // 76.0875 -> 77 (power 0.80483 at 77, 0.79953 at 76)
    assert.equal(sampleSizeForDifference({ p1: 0.5, p2: 0.6, paired: true, discordant: 0.1 }), 77);
  });

  it("needs fewer units than the unpaired design when outcomes are correlated", () => {
    const unpaired = sampleSizeForDifference({ p1: 0.5, p2: 0.6 });
    const paired = sampleSizeForDifference({ p1: 0.5, p2: 0.6, paired: true, discordant: 0.2 });
    assert.ok(paired < unpaired);
  });

  it("throws a RangeError for a missing or impossible discordant proportion", () => {
    assert.throws(() => sampleSizeForDifference({ p1: 0.5, p2: 0.6, paired: true }), RangeError);
    // |p1 − p2| = 0.1 > ψ: impossible
    assert.throws(
      () => sampleSizeForDifference({ p1: 0.5, p2: 0.6, paired: true, discordant: 0.05 }),
      RangeError,
    );
    // ψ > min(p1 + p2, 2 − p1 − p2) = 0.3: impossible
    assert.throws(
      () => sampleSizeForDifference({ p1: 0.9, p2: 0.8, paired: true, discordant: 0.35 }),
      RangeError,
    );
    assert.throws(
      () => sampleSizeForDifference({ p1: 0.5, p2: 0.6, paired: true, discordant: 1.5 }),
      RangeError,
    );
  });
});

describe("sampleSizeForDifference input checks", () => {
  it("throws a RangeError for equal rates, bad probabilities, alpha or power", () => {
    assert.throws(() => sampleSizeForDifference({ p1: 0.5, p2: 0.5 }), RangeError);
    assert.throws(() => sampleSizeForDifference({ p1: -0.1, p2: 0.5 }), RangeError);
    assert.throws(() => sampleSizeForDifference({ p1: 0.5, p2: 1.2 }), RangeError);
    assert.throws(() => sampleSizeForDifference({ p1: 0.5, p2: 0.6, alpha: 0 }), RangeError);
    assert.throws(() => sampleSizeForDifference({ p1: 0.5, p2: 0.6, power: 1 }), RangeError);
    assert.throws(() => sampleSizeForDifference({ p1: Number.NaN, p2: 0.6 }), RangeError);
  });
});
