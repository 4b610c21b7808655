/**
 * The presets of the one checker: which checks run, which agents play, and the thresholds and
 * defaults each applies. `checkEnvironment` (conformance, `assertConformant`), `auditEnvironment`
 * (`proving audit`), `runSelftest` (`proving selftest`) and the curriculum's quality gate
 * (`gateTask`) read their defaults here; whether a played episode kept its promise is decided once,
 * by `brokenPromise` (expectations.ts).
 */
import type { Failing } from "./expectations.ts";
import { CHECK_KINDS, type CheckKind } from "./report.ts";

/** Who plays: the world's scripted policies (`policies`: known-good and known-bad), or only its known-good, and the reference agents. */
export type PresetAgent = "policies" | "known-good" | "null" | "random" | "middling";

export interface Preset {
  /** The checks it runs (kinds of `checkEnvironment`). */
  kinds: readonly CheckKind[];
  agents: readonly PresetAgent[];
  /** What counts as failing for a policy that must fail. */
  failing: Failing;
  /** Seeds per family × difficulty (selftest: `trials` seeds from `seed`). */
  seeds: readonly number[];
  /** Difficulties (undefined: every one each family declares). */
  difficulties: readonly number[] | undefined;
  /** Step budget of a policy's episode (undefined: the runner's default budget). */
  maxSteps: number | undefined;
}

const SELFTEST_TRIALS = 3;

export const PRESETS = {
  /** What every world passes (`checkEnvironment` by default, `assertConformant`). */
  conformance: {
    kinds: CHECK_KINDS,
    agents: ["policies"],
    failing: "verdict",
    seeds: [0, 1, 2],
    difficulties: undefined,
    maxSteps: 200,
    fuzzPerTool: 1000,
  },
  /** Can it be trained on, and can it be cheated (`proving audit`)? */
  audit: {
    kinds: [
      "bad-input",
      "determinism",
      "reset",
      "policies",
      "cheating",
      "verdicts",
      "learning-signal",
      "hidden",
    ],
    agents: ["known-good", "null", "random", "middling"],
    failing: "any",
    seeds: [0, 1, 2],
    difficulties: [1, 3],
    maxSteps: 100,
    fuzzPerTool: 200,
    randomEpisodes: 2,
    signalSeeds: 8,
  },
  /** Every scripted policy over every family, through the trial pipeline (`proving selftest`). */
  selftest: {
    kinds: ["policies"],
    agents: ["policies"],
    failing: "any",
    seeds: Array.from({ length: SELFTEST_TRIALS }, (_, i) => i),
    difficulties: [1, 2, 3, 4, 5],
    maxSteps: undefined,
  },
  /** A generated task enters the dynamic split: solvable by the known-good policy, not by the null agent. */
  gate: {
    kinds: ["policies"],
    agents: ["known-good", "null"],
    failing: "any",
    seeds: [],
    difficulties: undefined,
    maxSteps: 200,
    /** The null agent's step budget (it ends the episode on its first step). */
    nullSteps: 3,
  },
} as const satisfies Record<string, Preset & Record<string, unknown>>;

/** The presets `checkEnvironment` runs itself (`options.preset`); selftest and the gate run theirs through the runner. */
export type CheckPreset = "conformance" | "audit";
