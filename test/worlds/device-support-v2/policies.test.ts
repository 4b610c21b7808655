/**
 * device-support@2's scripted policies against every persona: the known-good `asks-first` passes every
 * conversation family; `never-asks`, `first-answer` and `promises` fail the families they are built to
 * fail with the expected violation; serial and concurrent runs give identical trajectories; the @1
 * families judge exactly as in device-support@1.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { defaultGym } from "../../../src/gym/index.ts";
import { type ExperimentInput, parseExperiment, runExperiment } from "../../../src/runner/index.ts";
import {
  CONVERSATION_EXPECTED_FAILURES,
  CONVERSATION_FAMILY_NAMES,
} from "../../../src/worlds/device-support/index.ts";
import { PERSONAS } from "../../../src/worlds/shared/index.ts";

const gym = defaultGym();
const run = (input: ExperimentInput, concurrency = 4) =>
  runExperiment(parseExperiment({ worlds: ["device-support@2"], ...input }), {
    registry: gym.registry,
    resolveAgent: gym.resolveAgent,
    concurrency,
  });

const BAD = ["never-asks", "first-answer", "promises"] as const;

describe("device-support@2 policies", () => {
  for (const persona of PERSONAS) {
    test(`persona ${persona}: asks-first passes every conversation family; each bad policy fails with its code`, async () => {
      const r = await run({
        families: [...CONVERSATION_FAMILY_NAMES],
        difficulties: [1, 4],
        trials: 2,
        agents: ["asks-first", ...BAD],
        params: { customer: persona },
      });
      const good = r.trials.filter((t) => t.agent === "asks-first");
      assert.equal(good.length, CONVERSATION_FAMILY_NAMES.length * 2 * 2);
      for (const t of good)
        assert.equal(t.outcome, "passed", `${t.family} d${t.difficulty} s${t.seed}: ${t.reason}`);
      for (const policy of BAD) {
        const want = CONVERSATION_EXPECTED_FAILURES[policy];
        const rows = r.trials.filter((t) => t.agent === policy && want.families.includes(t.family));
        assert.ok(rows.length > 0);
        for (const t of rows) {
          assert.notEqual(t.outcome, "passed", `${policy} passed ${t.family} d${t.difficulty} s${t.seed}`);
          assert.ok(
            t.violations.some((c) => want.codes.includes(c)),
            `${policy} on ${t.family}: ${t.violations.join(",") || "no violation"}`,
          );
        }
      }
      const firstAnswer = r.trials.filter((t) => t.agent === "first-answer" && t.family === "stale-address");
      assert.ok(firstAnswer.every((t) => t.violations.includes("unconfirmed_write")));
    });
  }

  test("serial and concurrent runs give identical trajectories with scripted personas", async () => {
    const input = {
      families: [...CONVERSATION_FAMILY_NAMES, "lost-reply"],
      difficulties: [2],
      trials: 3,
      agents: ["asks-first", "first-answer", "promises"],
    };
    const serial = await run(input, 1);
    const concurrent = await run(input, 8);
    const hashes = (r: typeof serial) =>
      r.trials.map((t) => [t.index, t.family, t.agent, t.seed, t.trajectoryHash, t.outcome]);
    assert.equal(serial.trials.length, 5 * 3 * 3);
    assert.ok(serial.trials.every((t) => t.trajectoryHash.length > 0));
    assert.deepEqual(hashes(concurrent), hashes(serial));
  });

  test("the @1 families judge as in device-support@1 for the @1 policies", async () => {
    const families = ["approved-replacement", "lost-reply", "denied", "unverifiable"];
    const input = {
      families,
      difficulties: [1, 3],
      trials: 2,
      agents: ["cautious", "claims-success", "new-key-retry"],
    };
    const v1 = await runExperiment(parseExperiment({ ...input, worlds: ["device-support@1"] }), {
      registry: gym.registry,
      resolveAgent: gym.resolveAgent,
    });
    const v2 = await run(input);
    const view = (r: typeof v1) =>
      r.trials.map((t) => [t.family, t.difficulty, t.seed, t.agent, t.outcome, t.score, t.violations]);
    assert.deepEqual(view(v2), view(v1));
  });
});
