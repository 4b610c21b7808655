/**
 * `proving compare A B`: two runs of the scripted policies on the same tasks and seeds, compared pair
 * by pair, with the numbers checked by hand; and the refusals when the runs do not share tasks, seeds
 * or budgets.
 *
 * The setup: A = `cautious`, B = `new-key-retry`, 8 families × difficulties 1–2 × seeds 0–2 = 48 pairs.
 * `cautious` passes every task; `new-key-retry` fails exactly `lost-reply` and `delayed-receipt`
 * (duplicate writes; see EXPECTED_FAILURES and `proving selftest`), 6 pairs each. So by hand:
 *   both_pass = 36, a_only = 12, b_only = 0, neither = 0; difference = 12/48 = 0.25;
 *   McNemar exact p = min(1, 2·P(X ≤ 0)), X ~ Bin(12, ½) = 2·2⁻¹² = 0.00048828125;
 *   95% CI (Newcombe 1998, method 10): the discordance correction is 0 (eh − fg = 0), so
 *   lo = θ − √((p1 − l1)² + (u2 − p2)²), hi = θ + √((u1 − p1)² + (p2 − l2)²) with the Wilson intervals
 *   [l1, u1] = [0.925900, 1] for 48/48 and [l2, u2] = [0.612156, 0.850794] for 36/48 (z = 1.959964):
 *   lo = 0.25 − √(0.074100² + 0.100794²) = 0.124899, hi = 0.25 + √(0 + 0.137844²) = 0.387844.
 *   (Checked with an independent implementation in Python/scipy: [0.1248993, 0.3878437].)
 * Per family: 6/6 vs 0/6 → difference 1, p = 2·2⁻⁶ = 0.03125, CI [0.447984, 1];
 *             6/6 vs 6/6 → difference 0, p = 1, CI [−0.390334, 0.390334].
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ProvingError } from "../../src/core/errors.ts";
import { defaultGym } from "../../src/gym/index.ts";
import { type ComparedExperiment, compareExperiments, comparisonJson } from "../../src/report/compare.ts";
import { type ExperimentInput, parseExperiment } from "../../src/runner/experiment.ts";
import { runExperiment } from "../../src/runner/run.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Store } from "../../src/store/store.ts";
import { runCliToEnd } from "./support/child.ts";

const registry = defaultGym().registry;
let dir: string;
let file: string;
let store: Store;
const sides = new Map<string, ComparedExperiment>();

const BASE: ExperimentInput = { worlds: ["device-support@1"], difficulties: [1, 2], trials: 3 };

async function run(id: string, input: ExperimentInput): Promise<ComparedExperiment> {
  const result = await runExperiment(parseExperiment({ ...BASE, ...input, id }), {
    registry,
    store,
    concurrency: 8,
  });
  const side = { id, manifest: result.manifest, trials: result.trials };
  sides.set(id, side);
  return side;
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-compare-"));
  file = path.join(dir, "compare.db");
  store = await openStore(file);
  await run("A", { agents: ["cautious"] });
  await run("B", { agents: ["new-key-retry"] });
  await run("seeds-5", { agents: ["new-key-retry"], seed: 5 });
  await run("tight-budget", { agents: ["new-key-retry"], budget: { maxSteps: 50 } });
  await run("both-A", { agents: ["cautious", "new-key-retry"] });
  await run("both-B", { agents: ["new-key-retry", "cautious"] });
});
after(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const close = (x: number, y: number, tol = 1e-6) => assert.ok(Math.abs(x - y) <= tol, `${x} ≠ ${y}`);

describe("paired comparison of two experiments", () => {
  test("cautious vs new-key-retry: the table, difference, CI and McNemar p match the hand computation", () => {
    const c = compareExperiments(sides.get("A")!, sides.get("B")!);
    assert.deepEqual(
      { pairs: c.pairs, both: c.both_pass, a: c.a_only, b: c.b_only, neither: c.neither },
      { pairs: 48, both: 36, a: 12, b: 0, neither: 0 },
    );
    assert.equal(c.difference.estimate, 0.25);
    close(c.difference.ci[0], 0.124899);
    close(c.difference.ci[1], 0.387844);
    assert.deepEqual({ b: c.mcnemar.b, c: c.mcnemar.c }, { b: 12, c: 0 });
    close(c.mcnemar.p, 0.00048828125, 1e-12);
    assert.deepEqual(Object.keys(c.by_family).sort(), [
      "approval-revised",
      "approved-replacement",
      "delayed-receipt",
      "denied",
      "lost-reply",
      "needs-approval",
      "timeout-before-commit",
      "unverifiable",
    ]);
    for (const [family, f] of Object.entries(c.by_family)) {
      assert.equal(f.pairs, 6, family);
      if (family === "lost-reply" || family === "delayed-receipt") {
        assert.deepEqual([f.both_pass, f.a_only, f.b_only, f.neither], [0, 6, 0, 0], family);
        assert.equal(f.difference.estimate, 1);
        close(f.difference.ci[0], 0.447984);
        assert.equal(f.difference.ci[1], 1);
        close(f.mcnemar.p, 0.03125, 1e-12);
      } else {
        assert.deepEqual([f.both_pass, f.a_only, f.b_only, f.neither], [6, 0, 0, 0], family);
        assert.equal(f.difference.estimate, 0);
        close(f.difference.ci[0], -0.390334);
        close(f.difference.ci[1], 0.390334);
        assert.equal(f.mcnemar.p, 1);
      }
    }
    assert.deepEqual(c.problems, []);
    assert.deepEqual(c.warnings, []);
  });

  test("B vs A mirrors it: the sign flips, the p-value does not", () => {
    const c = compareExperiments(sides.get("B")!, sides.get("A")!);
    assert.deepEqual([c.a_only, c.b_only], [0, 12]);
    assert.equal(c.difference.estimate, -0.25);
    close(c.difference.ci[0], -0.387844);
    close(c.difference.ci[1], -0.124899);
    close(c.mcnemar.p, 0.00048828125, 1e-12);
  });

  test("with several agents in both, each agent is paired with itself", () => {
    const c = compareExperiments(sides.get("both-A")!, sides.get("both-B")!);
    assert.deepEqual(
      c.agents.map((x) => [x.a, x.b, x.pairs, x.a_only + x.b_only]),
      [
        ["cautious", "cautious", 48, 0],
        ["new-key-retry", "new-key-retry", 48, 0],
      ],
    );
    assert.equal(c.pairs, 96);
    assert.equal(c.mcnemar.p, 1);
    assert.ok("by_agent" in comparisonJson(c));
  });

  test("different seeds or budgets are refused, naming what differs; --force compares loudly", () => {
    const refuse = (b: string, pattern: RegExp) =>
      assert.throws(
        () => compareExperiments(sides.get("A")!, sides.get(b)!),
        (err: unknown) =>
          err instanceof ProvingError && err.code === "not_comparable" && pattern.test(err.message),
      );
    refuse("seeds-5", /seeds differ: A has 0–2; seeds-5 has 5–7/);
    refuse("tight-budget", /budgets differ/);
    const forced = compareExperiments(sides.get("A")!, sides.get("tight-budget")!, { force: true });
    assert.equal(forced.pairs, 48);
    assert.match(forced.problems.join("\n"), /budgets differ/);
    assert.throws(
      () => compareExperiments(sides.get("A")!, sides.get("seeds-5")!, { force: true }),
      (err: unknown) => err instanceof ProvingError && err.code === "nothing_to_compare",
    );
  });

  test("missing trials count as not passed, with a warning", () => {
    const b = sides.get("B")!;
    const dropped = new Set(b.trials.filter((t) => t.family === "denied").map((t) => t.trialId));
    const partial = { ...b, trials: b.trials.filter((t) => !dropped.has(t.trialId)) };
    const c = compareExperiments(sides.get("A")!, partial);
    assert.equal(c.pairs, 48);
    assert.equal(c.a_only, 18);
    assert.match(
      c.warnings.join("\n"),
      /B: 6 paired trial\(s\) never ran \(missing, counted as not passed\)/,
    );
  });
});

describe("the CLI", () => {
  test("`proving compare A B --json` gives exactly the normative document", async () => {
    const r = await runCliToEnd(["compare", "A", "B", "--store", file, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(out), [
      "pairs",
      "both_pass",
      "a_only",
      "b_only",
      "neither",
      "difference",
      "mcnemar",
      "by_family",
    ]);
    assert.deepEqual([out.pairs, out.both_pass, out.a_only, out.b_only, out.neither], [48, 36, 12, 0, 0]);
    assert.equal(out.difference.estimate, 0.25);
    close(out.difference.ci[0], 0.124899);
    close(out.difference.ci[1], 0.387844);
    assert.deepEqual(Object.keys(out.mcnemar), ["b", "c", "p"]);
    close(out.mcnemar.p, 0.00048828125, 1e-12);
    const lost = out.by_family["lost-reply"].mcnemar;
    assert.deepEqual([lost.b, lost.c], [6, 0]);
    close(lost.p, 0.03125, 1e-12);
    assert.deepEqual(Object.keys(out.by_family["lost-reply"]), [
      "pairs",
      "both_pass",
      "a_only",
      "b_only",
      "neither",
      "difference",
      "mcnemar",
    ]);
  });

  test("the table; a refusal exits 2; --force warns loudly on stderr", async () => {
    const table = await runCliToEnd(["compare", "A", "B", "--store", file]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /agents: cautious \(A\) vs new-key-retry \(B\)/);
    assert.match(
      table.stdout,
      /^all\s+48\s+36\s+12\s+0\s+0\s+100\.0%\s+75\.0%\s+\+25\.0\s+\[\+12\.5, \+38\.8\]\s+4\.9e-4$/m,
    );
    assert.match(
      table.stdout,
      /^ {2}lost-reply\s+6\s+0\s+6\s+0\s+0\s+100\.0%\s+0\.0%\s+\+100\.0\s+\[\+44\.8, \+100\.0\]\s+0\.031$/m,
    );
    const refused = await runCliToEnd(["compare", "A", "seeds-5", "--store", file]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /cannot be compared pair by pair[\s\S]*seeds differ/);
    assert.equal(refused.stdout, "");
    const forced = await runCliToEnd(["compare", "A", "tight-budget", "--store", file, "--force", "--json"]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stderr, /WARNING: A and tight-budget are NOT comparable[\s\S]*budgets differ/);
    assert.equal(JSON.parse(forced.stdout).pairs, 48);
  });
});
