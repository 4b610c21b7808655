import type { Scope } from "../check-run.ts";
import { brokenPromise, SOLVES } from "../expectations.ts";
import { cellName } from "../subject.ts";
import { type CheckPlan, noCells, type PlannedCheck } from "./planned-check.ts";

/**
 * Policies, through the runner (its clean-start and after-episode checks included): the known-good
 * policy passes every selected task of each family; each bad policy fails (or violates) every selected
 * task of the families it is expected to fail, with one of the expected violation codes when listed
 * (`brokenPromise`, failing by the verifier only).
 */
export function policyChecks(plan: CheckPlan): PlannedCheck[] {
  const { subject } = plan;
  const noGood = subject.knownGoodProblem();
  const good: PlannedCheck[] = subject.families.map((family) => {
    const cells = subject.cells(family.name);
    const reason = noGood ?? noCells(plan, family.name);
    return {
      name: `policies: known-good ${subject.knownGood} passes ${family.name}`,
      kind: "policies",
      ...(reason ? { notCheckable: reason } : {}),
      covers: `${cells.length} tasks`,
      async run(run) {
        for (const cell of cells) {
          await run.scope(cellName(cell), async (s: Scope) => {
            const r = await subject.runPolicy(subject.knownGood, cell);
            s.expect(brokenPromise(SOLVES, r) === undefined, `${r.outcome} (${r.reason})`);
          });
        }
      },
    };
  });
  const selected = new Set(subject.families.map((f) => f.name));
  const bad: PlannedCheck[] = Object.entries(subject.expectedFailures).map(([policy, want]) => {
    const families = want.families.filter((f) => selected.has(f));
    const cells = families.flatMap((f) => subject.cells(f));
    const codes = want.codes ?? [];
    const reason = !subject.policies[policy]
      ? `"${policy}" is not one of the policies`
      : cells.length === 0
        ? `none of the families it must fail (${want.families.join(", ")}) is selected`
        : undefined;
    return {
      name: `policies: ${policy} fails ${want.families.join(", ")}${codes.length ? ` with ${codes.join(" or ")}` : ""}`,
      kind: "policies",
      ...(reason ? { notCheckable: reason } : {}),
      covers: `${cells.length} tasks`,
      async run(run) {
        for (const cell of cells) {
          await run.scope(cellName(cell), async (s: Scope) => {
            const r = await subject.runPolicy(policy, cell);
            const violations = r.verdict?.violations.map((v) => v.code) ?? [];
            const broken = brokenPromise(
              { must: "fail", codes },
              { outcome: r.outcome, violations },
              "verdict",
            );
            s.must(
              broken !== "passed" && broken !== "not-caught",
              `${policy} should fail: ${r.outcome} (${r.reason})`,
            );
            s.expect(
              broken !== "no-expected-code",
              `${policy} failed without ${codes.join(" or ")}: ${r.outcome} (${r.reason})`,
            );
          });
        }
      },
    };
  });
  return [...good, ...bad];
}
