import { Registry } from "../../core/registry.ts";
import type { Scope } from "../check-run.ts";
import type { CheckPlan, PlannedCheck } from "./planned-check.ts";

/**
 * The definition: the world has families and difficulties, its known-good and bad policies exist and
 * name real families, and the environment is of that world with that world's verifier (a layer can
 * never change it).
 */
export function definitionChecks(plan: CheckPlan, restore: unknown): PlannedCheck[] {
  const { subject, spec } = plan;
  const world = subject.world;
  return [
    {
      name: "definition: families, policies and verifier are declared, and the environment is of the world",
      kind: "definition",
      covers: `${world.families.length} families, ${Object.keys(subject.policies).length} policies`,
      async run(run) {
        await run.scope("", async (s: Scope) => {
          s.expect(world.families.length > 0, "a world has task families");
          for (const f of world.families)
            s.expect(f.difficulties.length > 0, `family ${f.name} declares no difficulty`);
          s.expect(
            new Set(world.families.map((f) => f.name)).size === world.families.length,
            "family names are unique",
          );
          const bad = subject.knownGoodProblem();
          if (bad) s.fail(bad);
          for (const [policy, want] of Object.entries(subject.expectedFailures)) {
            s.expect(policy in subject.policies, `expectedFailures names an unknown policy "${policy}"`);
            s.expect(policy !== subject.knownGood, `the known-good policy "${policy}" is expected to fail`);
            for (const f of want.families)
              s.expect(
                world.families.some((w) => w.name === f),
                `${policy} is expected to fail an unknown family "${f}"`,
              );
          }
          s.expect(
            spec.world === world.id,
            `the environment is of ${spec.world}, its tasks are of ${world.id}`,
          );
          s.expect(
            spec.verifier === world.verifier,
            `the environment's verifier is ${spec.verifier}, the world's ${world.verifier}`,
          );
          if (subject.targetIsWorld)
            s.expect(spec.id === world.id, `the world's instances say they are ${spec.id}`);
          if (subject.targetIsWorld && restore instanceof Registry)
            s.expect(
              restore.hasWorld(world.id) && restore.world(world.id) === world,
              `the registry given to restore with does not hold this world as ${world.id}`,
            );
        });
      },
    },
  ];
}
