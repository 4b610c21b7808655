/**
 * `checkEnvironment` as a library: a report any test runner can read, `not_checkable` (never a
 * silent pass) when the environment lacks what a check needs, one error listing the failures.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Environment } from "../../src/core/contracts.ts";
import { ProvingError } from "../../src/core/errors.ts";
import type { JsonValue } from "../../src/core/json.ts";
import {
  assertConformant,
  CHECK_KINDS,
  type CheckOptions,
  ConformanceError,
  checkEnvironment,
  formatReport,
} from "../../src/testing/index.ts";
import { ToyWorld, toyWorld } from "../support/toy-world.ts";

/** Small enough to run often; still every kind of check. */
const QUICK: CheckOptions = { fuzzPerTool: 20, seeds: [0, 1], difficulties: [1, 3] };

/** The toy world with its inspection hidden: it declares no capability at all. */
function uninspectable(inner: ToyWorld): Environment {
  return {
    spec: inner.spec,
    capabilities: {},
    reset: (opts) => inner.reset(opts),
    step: (action) => inner.step(action),
    observe: () => inner.observe(),
    evaluate: () => inner.evaluate(),
    saveState: () => inner.saveState(),
  };
}

const statusOf = (report: Awaited<ReturnType<typeof checkEnvironment>>, prefix: string) => [
  ...new Set(report.checks.filter((c) => c.name.startsWith(prefix)).map((c) => c.status)),
];

describe("checkEnvironment", () => {
  test("a world passes with one call; the report is plain JSON, and the same on a second run", async () => {
    const report = await checkEnvironment(toyWorld(), QUICK);
    assert.equal(report.ok, true, formatReport(report));
    assert.equal(report.environment, "toy@1");
    assert.equal(report.world, "toy@1");
    assert.deepEqual(report.counts, { passed: report.checks.length, failed: 0, not_checkable: 0 });
    assert.deepEqual(
      [...new Set(report.checks.map((c) => c.kind))],
      [...CHECK_KINDS],
      "every kind of check ran, in order",
    );
    assert.ok(report.checks.every((c) => c.details.length > 0 && c.reason === undefined));
    assert.deepEqual(report.capabilities, {
      inspection: true,
      delivery: false,
      timeControl: false,
      setup: false,
      admissible: true,
      restore: true,
    });
    assert.deepEqual(JSON.parse(JSON.stringify(report)), report);
    assert.deepEqual(await checkEnvironment(toyWorld(), QUICK), report);
    assert.doesNotThrow(() => assertConformant(report));
  });

  test("options it cannot use are config errors; a world that throws is a failed check, not a throw", async () => {
    const world = toyWorld();
    await assert.rejects(
      checkEnvironment(() => world.create()),
      { code: "bad_check_options" },
    );
    await assert.rejects(checkEnvironment(world, { world: toyWorld() }), { code: "bad_check_options" });
    await assert.rejects(checkEnvironment(world, { families: ["nope"] }), { code: "unknown_family" });
    await assert.rejects(checkEnvironment(world, { seeds: [] }), { code: "bad_check_options" });
    const report = await checkEnvironment(toyWorld({ resetThrows: true }), QUICK);
    assert.equal(report.ok, false);
    assert.match(report.checks.find((c) => c.kind === "tools")?.reason ?? "", /reset exploded/);
  });

  test("a factory without a way to restore: save/restore is not checkable, everything else runs", async () => {
    const world = toyWorld();
    const report = await checkEnvironment(() => new ToyWorld(), { ...QUICK, world });
    assert.equal(report.capabilities.restore, false);
    const saves = report.checks.filter((c) => c.kind === "save-restore");
    assert.equal(saves.length, world.families.length);
    for (const c of saves) {
      assert.equal(c.status, "not_checkable");
      assert.match(c.reason ?? "", /no way to restore/);
      assert.deepEqual(c.details, []);
    }
    assert.equal(report.counts.not_checkable, saves.length);
    assert.equal(report.counts.failed, 0, formatReport(report));
    assertConformant(report); // not checkable is reported, not failed...
    assert.throws(
      () => assertConformant(report, { requireAll: true }), // ...unless every check must have run
      (err: unknown) =>
        err instanceof ConformanceError &&
        err.failures.length === saves.length &&
        err.message.includes("n/c  save/restore: reach"),
    );
    // given a restore, the same factory's saved states are checked
    const restored = await checkEnvironment(() => new ToyWorld(), {
      ...QUICK,
      world,
      restore: (state: JsonValue) => ToyWorld.fromState(state),
    });
    assert.deepEqual(statusOf(restored, "save/restore"), ["passed"]);
  });

  test("an environment that declares no inspection: the reset checks are not checkable, save/restore still runs", async () => {
    const world = toyWorld();
    const report = await checkEnvironment(() => uninspectable(new ToyWorld()), {
      ...QUICK,
      world,
      restore: (state) => uninspectable(ToyWorld.fromState(state)),
      expectBackgroundJobs: true,
    });
    assert.equal(report.capabilities.inspection, false);
    const resets = report.checks.filter((c) => c.kind === "reset");
    assert.equal(resets.length, world.families.length + 1, "per family, and the background-jobs check");
    for (const c of resets) {
      assert.equal(c.status, "not_checkable");
      assert.match(c.reason ?? "", /declares no inspection/);
    }
    const saves = report.checks.filter((c) => c.kind === "save-restore");
    assert.ok(saves.every((c) => c.status === "passed" && /not compared: no inspection/.test(c.details[0])));
    assert.equal(report.counts.failed, 0, formatReport(report));
  });

  test("the known-good policy must exist: without it the checks that play it are not checkable", async () => {
    const report = await checkEnvironment(toyWorld(), { ...QUICK, knownGood: "nobody" });
    assert.equal(report.checks.find((c) => c.kind === "definition")?.status, "failed");
    for (const prefix of ["determinism:", "save/restore:", "reset:", "policies: known-good"])
      assert.deepEqual(statusOf(report, prefix), ["not_checkable"], prefix);
    assert.deepEqual(statusOf(report, "policies: overshooter"), ["passed"]);
  });

  test("a bad policy that passes is a failed check", async () => {
    const report = await checkEnvironment(toyWorld(), {
      ...QUICK,
      expectedFailures: { good: { families: ["reach"], codes: [] } },
      knownGood: "good",
      only: (name) => name.startsWith("policies: good") || name.startsWith("definition"),
    });
    assert.deepEqual(
      report.checks.map((c) => [c.name, c.status]),
      [
        [
          "definition: families, policies and verifier are declared, and the environment is of the world",
          "failed",
        ],
        ["policies: good fails reach", "failed"],
      ],
    );
  });

  test("assertConformant throws one error listing every failed check", async () => {
    const report = await checkEnvironment(toyWorld({ acceptsBadArgs: true }), QUICK);
    const failed = report.checks.filter((c) => c.status === "failed");
    assert.deepEqual(
      failed.map((c) => c.name),
      ["bad input: 20 malformed argument objects to add"],
    );
    assert.throws(
      () => assertConformant(report),
      (err: unknown) => {
        assert.ok(err instanceof ConformanceError && err instanceof ProvingError);
        assert.equal(err.code, "not_conformant");
        assert.equal(err.fault, "world");
        assert.equal(err.report, report);
        assert.deepEqual(err.failures, failed);
        assert.match(err.message, /1 failed/);
        assert.match(
          err.message,
          /FAIL bad input: 20 malformed argument objects to add — add case \d+ .*accepted/,
        );
        assert.doesNotMatch(err.message, /ok {3}determinism/, "passed checks are left out of the message");
        return true;
      },
    );
  });
});
