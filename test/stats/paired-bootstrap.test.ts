import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "../../src/core/rng.ts";
import { pairedBootstrap } from "../../src/stats/index.ts";
import { assertClose } from "./close.ts";

const small = [
  { a: 0.9, b: 0.5 },
  { a: 0.2, b: 0.4 },
  { a: 1.0, b: 0.0 },
  { a: 0.7, b: 0.7 },
  { a: 0.3, b: 0.1 },
];

// Exact expectations come from an independent Python re-implementation of Rng.seeded
// (splitmix32 → xoshiro128**), the resampling loop and type-7 quantiles:
//
//   import math
//   M = 0xFFFFFFFF
//   def imul(a, b): return (a * b) & M
//   def rotl(x, k): return ((x << k) | (x >> (32 - k))) & M
//   def splitmix32(seed):
//       s = [seed & M]
//       def nxt():
//           s[0] = (s[0] + 0x9e3779b9) & M; z = s[0]
//           z = imul(z ^ (z >> 16), 0x85ebca6b); z = imul(z ^ (z >> 13), 0xc2b2ae35)
//           return (z ^ (z >> 16)) & M
//       return nxt
//   class Rng:
//       def __init__(self, seed): sm = splitmix32(seed & M); self.s = [sm(), sm(), sm(), sm()]
//       def next(self):
//           s = self.s; r = imul(rotl(imul(s[1], 5), 7), 9); t = (s[1] << 9) & M
//           s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 11)
//           return r / 4294967296
//   def q7(x, q):
//       h = (len(x) - 1) * q; lo = math.floor(h); up = min(lo + 1, len(x) - 1)
//       return x[lo] + (h - lo) * (x[up] - x[lo])
//   def boot(pairs, iters, conf, seed):
//       d = [a - b for a, b in pairs]; n = len(d); r = Rng(seed); res = []
//       for _ in range(iters):
//           s = 0.0
//           for _ in range(n): s += d[math.floor(r.next() * n)]
//           res.append(s / n)
//       res.sort(); t = (1 - conf) / 2
//       return sum(d) / n, q7(res, t), q7(res, 1 - t)
//   pairs = [(0.9, 0.5), (0.2, 0.4), (1.0, 0.0), (0.7, 0.7), (0.3, 0.1)]
//   print(boot(pairs, 1000, 0.95, 42), boot(pairs, 2000, 0.9, 7))
describe("pairedBootstrap", () => {
  it("matches an independent re-implementation for a fixed seed", () => {
    const r = pairedBootstrap(small, { iterations: 1000, confidence: 0.95, seed: 42 });
    assertClose(r.estimate, 0.28, 1e-15); // mean(a) − mean(b) = 3.1/5 − 1.7/5
    assertClose(r.lo, -0.04000000000000001, 1e-12);
    assertClose(r.hi, 0.6799999999999999, 1e-12);
    const s = pairedBootstrap(small, { iterations: 2000, confidence: 0.9, seed: 7 });
    assertClose(s.lo, -2.7755575615643113e-19, 1e-12);
    assertClose(s.hi, 0.6, 1e-12);
  });

  it("is deterministic for a seed, and an injected Rng is the same as its seed", () => {
    const first = pairedBootstrap(small, { iterations: 500, seed: 3 });
    assert.deepEqual(pairedBootstrap(small, { iterations: 500, seed: 3 }), first);
    assert.deepEqual(pairedBootstrap(small, { iterations: 500, rng: Rng.seeded(3) }), first);
    assert.deepEqual(pairedBootstrap(small), pairedBootstrap(small, { iterations: 10_000, seed: 0 }));
  });

  it("estimates mean(a) − mean(b): positive when A scores higher", () => {
    const r = pairedBootstrap([
      { a: 1, b: 0 },
      { a: 1, b: 1 },
    ]);
    assert.equal(r.estimate, 0.5);
    // Resampled means of {1, 0} are 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4, so the 2.5% and 97.5%
    // quantiles of 10000 draws are 0 and 1 (each extreme holds ~2500 draws).
    assert.equal(r.lo, 0);
    assert.equal(r.hi, 1);
  });

  it("collapses to the estimate when every difference is equal", () => {
    const r = pairedBootstrap(
      [
        { a: 1, b: 0.75 },
        { a: 0.5, b: 0.25 },
        { a: 0.25, b: 0 },
      ],
      { iterations: 200 },
    );
    assert.deepEqual(r, { estimate: 0.25, lo: 0.25, hi: 0.25 });
    assert.deepEqual(pairedBootstrap([{ a: 0.5, b: 1 }]), { estimate: -0.5, lo: -0.5, hi: -0.5 });
  });

  it("agrees with the normal-theory interval for a large sample", () => {
    const pairs = Array.from({ length: 400 }, (_, i) => ({
      a: ((i * 37) % 101) / 100,
      b: ((i * 53 + 7) % 89) / 88,
    }));
    // python3 -c "import math, statistics; from statistics import NormalDist
    //   d=[((i*37)%101)/100-((i*53+7)%89)/88 for i in range(400)]; m=sum(d)/400
    //   se=statistics.pstdev(d)/math.sqrt(400); z=NormalDist().inv_cdf(0.975); print(repr(m), repr(se), repr(m-z*se), repr(m+z*se))"
    const se = 0.02082335047667044;
    const r = pairedBootstrap(pairs, { seed: 1 });
    assertClose(r.estimate, -0.0010420454545454546, 1e-15);
    assertClose(r.lo, -0.04185506242627447, 0.1 * se);
    assertClose(r.hi, 0.03977097151718356, 0.1 * se);
  });

  it("throws a RangeError for bad input", () => {
    assert.throws(() => pairedBootstrap([]), RangeError);
    assert.throws(() => pairedBootstrap(small, { iterations: 0 }), RangeError);
    assert.throws(() => pairedBootstrap(small, { iterations: 10.5 }), RangeError);
    assert.throws(() => pairedBootstrap(small, { confidence: 1 }), RangeError);
    assert.throws(() => pairedBootstrap(small, { confidence: 0 }), RangeError);
    assert.throws(() => pairedBootstrap(small, { seed: Number.NaN }), RangeError);
    assert.throws(() => pairedBootstrap([{ a: Number.NaN, b: 0 }]), RangeError);
  });
});
