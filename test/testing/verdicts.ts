/**
 * The verdicts of the checker's presets on every built-in world and the audit's vault worlds:
 * `selftest` (ok, problems, per-policy per-family outcome counts), `audit` (every finding) and the
 * curriculum's quality gate (status and reason per task). `record-verdicts.ts` saved them in
 * `verdicts.fixture.json` before the presets became one checker; `same-verdicts.test.ts` asserts the
 * code still gives them.
 */
import type { WorldDefinition } from "../../src/core/registry.ts";
import { createGym, defaultGym } from "../../src/gym/index.ts";
import { deviceSupport } from "../../src/worlds/device-support/index.ts";
import { type Break, vaultWorld } from "../audit/broken-worlds.ts";

/** The audit's quick options (as test/audit uses them): small enough to run on every world. */
export const AUDIT_OPTIONS = { seeds: [0], difficulties: [1, 2], fuzzPerTool: 50, signalSeeds: 3 };
/** Selftest as `proving selftest` runs it (every difficulty, 3 seeds). */
export const SELFTEST_OPTIONS = {};
export const VAULT_BREAKS: Break[] = [
  "none",
  "null-passes",
  "nondeterministic-verifier",
  "leaky-reset",
  "crashing-tool",
  "leaky-tool",
];

export interface Verdicts {
  selftest: Record<string, unknown>;
  audit: Record<string, unknown>;
  gate: Record<string, unknown[]>;
}

type Api = {
  runSelftest: (gym: ReturnType<typeof createGym>, opts: object) => Promise<unknown>;
  auditEnvironment: (opts: { world: WorldDefinition; [k: string]: unknown }) => Promise<unknown>;
  gateTask: (
    world: WorldDefinition,
    planned: { key: { world: string; family: string; difficulty: number }; seed: number },
    seen: Set<string>,
  ) => Promise<unknown>;
};

/** Runs every preset on every world (the functions are passed in: the old ones or the new ones). */
export async function collectVerdicts(api: Api): Promise<Verdicts> {
  const gym = defaultGym();
  const out: Verdicts = { selftest: {}, audit: {}, gate: {} };
  for (const world of gym.worlds()) {
    out.selftest[world.id] = await api.runSelftest(gym, { ...SELFTEST_OPTIONS, worlds: [world.id] });
    out.audit[world.id] = await api.auditEnvironment({ ...AUDIT_OPTIONS, world, restore: gym.registry });
    const gate: unknown[] = [];
    const seen = new Set<string>();
    for (const f of world.families) {
      const difficulty = f.difficulties[0];
      for (const seed of [0, 1]) {
        const v = await api.gateTask(
          world,
          { key: { world: world.id, family: f.name, difficulty }, seed },
          seen,
        );
        gate.push({ family: f.name, difficulty, seed, verdict: v });
      }
    }
    out.gate[world.id] = gate;
  }
  // worlds that break a selftest promise: an unsolvable known-good, a bad policy that is expected to fail
  // families it passes, and one expected to fail with a code it never shows
  const broken: WorldDefinition[] = [
    { ...deviceSupport, id: "device-support-unsolvable@1", knownGood: "claims-success" },
    {
      ...deviceSupport,
      id: "device-support-wrong-expectations@1",
      expectedFailures: {
        ...deviceSupport.expectedFailures,
        [deviceSupport.knownGood]: { families: [deviceSupport.families[0].name], codes: [] },
        "claims-success": { families: deviceSupport.families.map((f) => f.name), codes: ["no.such.code"] },
      },
    },
  ];
  for (const world of [...broken, ...VAULT_BREAKS.map((b) => vaultWorld(b))]) {
    const other = createGym({ worlds: [world] });
    out.selftest[world.id] = await api.runSelftest(other, {
      ...SELFTEST_OPTIONS,
      difficulties: [1, 2],
      worlds: [world.id],
    });
  }
  for (const broken of VAULT_BREAKS) {
    const world = vaultWorld(broken);
    const vaultGym = createGym({ worlds: [world] });
    out.audit[world.id] = await api.auditEnvironment({ ...AUDIT_OPTIONS, world, restore: vaultGym.registry });
    const key = { world: world.id, family: "count", difficulty: 1 };
    out.gate[world.id] = [
      {
        family: "count",
        difficulty: 1,
        seed: 0,
        verdict: await api.gateTask(world, { key, seed: 0 }, new Set()),
      },
    ];
  }
  return out;
}
