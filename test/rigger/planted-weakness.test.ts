import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rig } from "../../src/rigger/rig.ts";
import { templateDesigner } from "../../src/rigger/template-designer.ts";
import { PLANTED_CASES, plantedAgent, rolloutsFor } from "./support.ts";

/**
 * Done-when of the rigger: agents with planted weaknesses (two kinds, on both worlds) → the rigger
 * names each weakness and produces an accepted variant within 50 target rollouts per weakness, and the
 * known-good policy passes every accepted variant (its validation rollouts, and fresh seeds here).
 */
describe("planted weaknesses", () => {
  for (const c of PLANTED_CASES) {
    it(`${c.agent} on ${c.world}: names ${c.pattern} and accepts a variant within 50 target rollouts`, async () => {
      const rollouts = await rolloutsFor(c.world, plantedAgent(c.agent));
      const r = await rig({ id: `pw-${c.agent}`, rollouts, designer: templateDesigner() });
      const d = r.diagnoses[0];
      assert.equal(d.pattern, c.pattern);
      assert.equal(d.facts?.tool, c.tool);
      assert.ok(d.evidence.length > 0 && d.violations.length > 0);
      assert.equal(r.accepted.length, 1, JSON.stringify(r.candidates.map((x) => [x.decision, x.reason])));
      const used = r.rollouts.perPattern[`${c.pattern}:${c.tool}`];
      assert.ok(used > 0 && used <= 50, `${used} target rollouts`);
      const accepted = r.candidates.find((x) => x.decision === "ACCEPT");
      assert.ok(accepted?.validation);
      const v = accepted.validation;
      assert.equal(v.knownGood.passed, v.knownGood.trials, "known-good passes every validation rollout");
      assert.ok(v.target.ci[0] >= 0.2 && v.target.ci[1] <= 0.8, `interval ${v.target.ci}`);
      assert.ok(v.changesOutcomes && v.verifierUnchanged);
      assert.ok(accepted.layers.includes("rule.lose-reply-after-commit@1"));
      // the known-good policy passes the accepted variant on fresh seeds too
      const fresh = await rollouts.run({
        id: `pw-${c.agent}-fresh`,
        variant: r.accepted[0],
        families: accepted.tasks.families,
        difficulties: [1, 2, 3, 4],
        trials: 3,
        seed: 5000,
        player: "known_good",
      });
      assert.ok(fresh.length >= 12);
      assert.deepEqual(
        fresh.filter((t) => t.outcome !== "passed").map((t) => [t.task.family, t.task.difficulty, t.outcome]),
        [],
      );
    });
  }
});
