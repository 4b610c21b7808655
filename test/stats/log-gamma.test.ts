import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { logGamma } from "../../src/stats/index.ts";
import { assertClose } from "./close.ts";

describe("logGamma", () => {
  it("matches Python's math.lgamma", () => {
    // python3 -c "import math; [print(x, repr(math.lgamma(x))) for x in [1e-8,0.1,0.5,1,1.5,2,3.7,10,100.5,1e6]]"
    const cases: [number, number][] = [
      [1e-8, 18.42068073818021],
      [0.1, 2.2527126517342055],
      [0.5, 0.5723649429247004], // = ln √π
      [1, 0],
      [1.5, -0.12078223763524543],
      [2, 0],
      [3.7, 1.4280723266653883],
      [10, 12.801827480081467], // = ln 9! = ln 362880
      [100.5, 361.4355404677776],
      [1e6, 12815504.569147611],
    ];
    for (const [x, expected] of cases) {
      assertClose(logGamma(x), expected, 1e-13 * Math.max(1, Math.abs(expected)), `lgamma(${x})`);
    }
  });

  it("gives ln n! for integers", () => {
    assertClose(logGamma(10), Math.log(362880), 1e-13); // 9! = 362880
  });

  it("throws a RangeError for x <= 0 or non-finite x", () => {
    for (const x of [0, -1, -0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => logGamma(x), RangeError);
    }
  });
});
