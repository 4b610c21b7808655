import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clusteredStandardError } from "../../src/stats/index.ts";
import { assertClose } from "./close.ts";

describe("clusteredStandardError", () => {
  it("matches the CR1 sandwich computed as a double sum over same-cluster pairs", () => {
    const data: [string, number][] = [
      ["A", 1],
      ["A", 1],
      ["A", 1],
      ["A", 0],
      ["B", 0],
      ["B", 0],
      ["B", 0],
      ["C", 1],
      ["C", 0],
      ["D", 0.5],
      ["D", 0.7],
      ["D", 0.9],
    ];
    // python3 -c "import math, statistics
    //   data=[('A',1),('A',1),('A',1),('A',0),('B',0),('B',0),('B',0),('C',1),('C',0),('D',0.5),('D',0.7),('D',0.9)]
    //   n=len(data); m=sum(v for _,v in data)/n; G=len({c for c,_ in data})
    //   cr0=sum((vi-m)*(vj-m) for ci,vi in data for cj,vj in data if ci==cj)/n**2
    //   print(repr(m), repr(math.sqrt(G/(G-1)*cr0)), repr(statistics.stdev([v for _,v in data])/math.sqrt(n)))"
    const r = clusteredStandardError(data.map(([cluster, value]) => ({ cluster, value })));
    assertClose(r.mean, 0.5083333333333334, 1e-15);
    assertClose(r.se, 0.1823451200288999, 1e-14);
    assertClose(r.naiveSe, 0.13621414364629295, 1e-14);
    assert.equal(r.clusters, 4);
    assert.equal(r.n, 12);
  });

  it("equals the naive standard error when every observation is its own cluster", () => {
    // python3 -c "import statistics, math; x=[0.2,0.4,0.9,1.0,0.0]; print(repr(statistics.stdev(x)/math.sqrt(len(x))))"
    const x = [0.2, 0.4, 0.9, 1.0, 0.0];
    const r = clusteredStandardError(x.map((value, i) => ({ cluster: `t${i}`, value })));
    assertClose(r.mean, 0.5, 1e-15);
    assertClose(r.se, 0.19493588689617924, 1e-14);
    assertClose(r.naiveSe, 0.19493588689617924, 1e-14);
  });

  it("does not shrink when each cluster's value is merely repeated", () => {
    // Ten identical copies of each singleton carry no new information: the clustered SE stays at the
    // singleton value above (CR0·G/(G−1) is unchanged by replication), while the naive SE shrinks.
    const x = [0.2, 0.4, 0.9, 1.0, 0.0];
    const repeated = x.flatMap((value, i) => Array.from({ length: 10 }, () => ({ cluster: `t${i}`, value })));
    const r = clusteredStandardError(repeated);
    assertClose(r.se, 0.19493588689617924, 1e-14);
    assert.ok(r.naiveSe < r.se / 2, `naive ${r.naiveSe} should be far below clustered ${r.se}`);
  });

  it("returns NaN standard errors when they are undefined", () => {
    const one = clusteredStandardError([{ cluster: "a", value: 0.7 }]);
    assert.equal(one.mean, 0.7);
    assert.ok(Number.isNaN(one.se));
    assert.ok(Number.isNaN(one.naiveSe));
    const single = clusteredStandardError([
      { cluster: "a", value: 1 },
      { cluster: "a", value: 0 },
    ]);
    assert.ok(Number.isNaN(single.se), "one cluster: the cluster-robust SE is undefined");
    assertClose(single.naiveSe, 0.5, 1e-15); // sd = sqrt(0.5), / sqrt(2) = 0.5
  });

  it("gives 0 when all values are equal", () => {
    const r = clusteredStandardError([
      { cluster: "a", value: 1 },
      { cluster: "b", value: 1 },
      { cluster: "b", value: 1 },
    ]);
    assert.deepEqual([r.mean, r.se, r.naiveSe], [1, 0, 0]);
  });

  it("throws a RangeError for no values or a non-finite value", () => {
    assert.throws(() => clusteredStandardError([]), RangeError);
    assert.throws(() => clusteredStandardError([{ cluster: "a", value: Number.NaN }]), RangeError);
    assert.throws(
      () => clusteredStandardError([{ cluster: "a", value: Number.POSITIVE_INFINITY }]),
      RangeError,
    );
  });
});
