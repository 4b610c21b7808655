import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { comparePaired, newcombePairedInterval } from "../../src/stats/index.ts";
import { assertClose } from "./close.ts";

/** Builds pairs from the 2×2 table counts (both pass, A only, B only, neither). */
function pairsFrom(e: number, f: number, g: number, h: number) {
  return [
    ...Array.from({ length: e }, () => ({ a: true, b: true })),
    ...Array.from({ length: f }, () => ({ a: true, b: false })),
    ...Array.from({ length: g }, () => ({ a: false, b: true })),
    ...Array.from({ length: h }, () => ({ a: false, b: false })),
  ];
}

describe("newcombePairedInterval", () => {
  it("reproduces Newcombe (1998) Table II, method 10", () => {
    // Newcombe RG (1998) Stat Med 17:2635–2650, examples (a)–(d), 95% hybrid score intervals (4 d.p.).
    const published: [number, number, number, number, number, number][] = [
      [36, 12, 2, 0, 0.0569, 0.3404],
      [18, 12, 2, 18, 0.0562, 0.329],
      [53, 0, 0, 1, -0.0729, 0.0729],
      [0, 30, 0, 0, 0.8395, 1],
    ];
    for (const [e, f, g, h, lo, hi] of published) {
      const r = newcombePairedInterval({ both_pass: e, a_only: f, b_only: g, neither: h });
      assertClose(r.estimate, (f - g) / (e + f + g + h), 1e-15);
      assertClose(r.lo, lo, 5e-5, `(${e},${f},${g},${h}) lo`);
      assertClose(r.hi, hi, 5e-5, `(${e},${f},${g},${h}) hi`);
    }
  });

  it("matches an independent computation at other confidence levels", () => {
    // python3: wil(x,n,c) = closed-form Wilson (see wilson.test.ts); then
    //   p1=(e+f)/n; p2=(e+g)/n; D=e*h-f*g; phi=((D-n/2) if D>n/2 else (D if D<0 else 0))/sqrt((e+f)(g+h)(e+g)(f+h))
    //   lo=t-sqrt((p1-l1)**2-2*phi*(p1-l1)*(u2-p2)+(u2-p2)**2); hi=t+sqrt((u1-p1)**2-2*phi*(u1-p1)*(p2-l2)+(p2-l2)**2)
    const r = newcombePairedInterval({ both_pass: 20, a_only: 9, b_only: 3, neither: 8 }, 0.9);
    assertClose(r.estimate, 0.15, 1e-15);
    assertClose(r.lo, 0.005652718582332461, 1e-13);
    assertClose(r.hi, 0.28537328893198105, 1e-13);
    const s = newcombePairedInterval({ both_pass: 5, a_only: 2, b_only: 7, neither: 6 });
    assertClose(s.lo, -0.4895835398120932, 1e-13);
    assertClose(s.hi, 0.04453325793755675, 1e-13);
  });

  it("throws a RangeError for an empty table or bad counts", () => {
    assert.throws(
      () => newcombePairedInterval({ both_pass: 0, a_only: 0, b_only: 0, neither: 0 }),
      RangeError,
    );
    assert.throws(
      () => newcombePairedInterval({ both_pass: -1, a_only: 2, b_only: 0, neither: 0 }),
      RangeError,
    );
  });
});

describe("comparePaired", () => {
  it("tabulates the pairs and reports the difference A − B and McNemar", () => {
    const r = comparePaired(pairsFrom(36, 12, 2, 0));
    assert.equal(r.pairs, 50);
    assert.deepEqual([r.both_pass, r.a_only, r.b_only, r.neither], [36, 12, 2, 0]);
    assert.equal(r.difference.estimate, 0.2); // (12 − 2) / 50
    assertClose(r.difference.ci[0], 0.0569, 5e-5); // Newcombe (1998) Table II (a)
    assertClose(r.difference.ci[1], 0.3404, 5e-5);
    // python3 -c "from math import comb; print(2*sum(comb(14,i) for i in range(3))/2**14)"  -> 0.012939453125
    assert.deepEqual([r.mcnemar.b, r.mcnemar.c], [12, 2]);
    assertClose(r.mcnemar.p, 0.012939453125, 1e-15);
  });

  it("is antisymmetric in A and B", () => {
    const swapped = comparePaired(pairsFrom(36, 12, 2, 0).map(({ a, b }) => ({ a: b, b: a })));
    assert.equal(swapped.difference.estimate, -0.2);
    assertClose(swapped.difference.ci[0], -0.3404, 5e-5);
    assertClose(swapped.difference.ci[1], -0.0569, 5e-5);
    assert.deepEqual([swapped.mcnemar.b, swapped.mcnemar.c], [2, 12]);
    assertClose(swapped.mcnemar.p, 0.012939453125, 1e-15);
  });

  it("with no discordant pairs gives p = 1 and a non-degenerate interval", () => {
    const r = comparePaired(pairsFrom(53, 0, 0, 1));
    assert.equal(r.difference.estimate, 0);
    assertClose(r.difference.ci[0], -0.0729, 5e-5); // Newcombe (1998) Table II (c)
    assertClose(r.difference.ci[1], 0.0729, 5e-5);
    assert.deepEqual(r.mcnemar, { b: 0, c: 0, p: 1 });
  });

  it("handles all-pass and all-fail comparisons", () => {
    const allPass = comparePaired(pairsFrom(10, 0, 0, 0));
    assert.equal(allPass.difference.estimate, 0);
    assert.ok(allPass.difference.ci[0] < 0 && allPass.difference.ci[1] > 0);
    assert.equal(allPass.mcnemar.p, 1);
    const aOnly = comparePaired(pairsFrom(0, 30, 0, 0));
    assert.equal(aOnly.difference.estimate, 1);
    assertClose(aOnly.difference.ci[0], 0.8395, 5e-5); // Newcombe (1998) Table II (d)
    assert.equal(aOnly.difference.ci[1], 1);
    // python3 -c "print(2/2**30)"  -> 1.862645149230957e-09
    assertClose(aOnly.mcnemar.p, 1.862645149230957e-9, 1e-22);
  });

  it("can use the paired bootstrap instead", () => {
    const pairs = pairsFrom(36, 12, 2, 0);
    const r = comparePaired(pairs, { method: "bootstrap", iterations: 2000, seed: 5 });
    assert.equal(r.difference.estimate, 0.2);
    assert.ok(r.difference.ci[0] > 0 && r.difference.ci[0] < 0.2 && r.difference.ci[1] > 0.2);
    assert.deepEqual(
      comparePaired(pairs, { method: "bootstrap", iterations: 2000, seed: 5 }),
      r,
      "deterministic for a seed",
    );
    // A table with no discordant pairs leaves the bootstrap nothing to resample: [0, 0].
    assert.deepEqual(comparePaired(pairsFrom(5, 0, 0, 5), { method: "bootstrap" }).difference.ci, [0, 0]);
  });

  it("throws a RangeError for bad input", () => {
    assert.throws(() => comparePaired([]), RangeError);
    assert.throws(() => comparePaired([{ a: 1 as unknown as boolean, b: true }]), RangeError);
    assert.throws(() => comparePaired(pairsFrom(1, 1, 1, 1), { confidence: 1.5 }), RangeError);
    assert.throws(
      () => comparePaired(pairsFrom(1, 1, 1, 1), { method: "wald" as unknown as "newcombe" }),
      RangeError,
    );
  });
});
