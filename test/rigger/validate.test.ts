import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TrialRecord } from "../../src/core/contracts.ts";
import type { VariantSpec } from "../../src/harness/variant.ts";
import { refineKnob, startSearch } from "../../src/rigger/refine-knob.ts";
import { rig } from "../../src/rigger/rig.ts";
import type { RolloutRequest, Rollouts } from "../../src/rigger/rollouts.ts";
import { bandPosition } from "../../src/rigger/sequential-interval.ts";
import { templateDesigner } from "../../src/rigger/template-designer.ts";
import type { LayersProposal } from "../../src/rigger/types.ts";
import { validateCandidate } from "../../src/rigger/validate-candidate.ts";
import { err, fakeRecord, gym, ok, plantedAgent, rolloutsFor } from "./support.ts";

const world = gym.world("order-ops@1");

/** Stand-in rollouts: the target passes with rate(variant), spread evenly over the batch; the known-good passes unless `unsolvable`. */
function fakeRollouts(o: {
  rate: (v: VariantSpec | undefined) => number;
  unsolvable?: (v: VariantSpec | undefined) => boolean;
  verifier?: string;
  baseline?: TrialRecord[];
}): Rollouts & { requests: RolloutRequest[] } {
  const requests: RolloutRequest[] = [];
  let made = 0;
  return {
    world,
    requests,
    async run(req) {
      requests.push(req);
      if (!req.variant && o.baseline) return o.baseline;
      const cells = (req.families?.length ?? 1) * req.difficulties.length * req.trials;
      const out: TrialRecord[] = [];
      for (let i = 0; i < cells; i++) {
        const n = made++;
        const pass =
          req.player === "known_good"
            ? !o.unsolvable?.(req.variant)
            : Math.floor((n + 1) * o.rate(req.variant)) > Math.floor(n * o.rate(req.variant));
        const r = fakeRecord(`${req.id}-${i}`, [{ tool: "close_ticket", result: ok() }], {
          outcome: pass ? "passed" : "failed",
          family: req.families?.[0] ?? "refund",
        });
        r.verdict = {
          ...(r.verdict as NonNullable<TrialRecord["verdict"]>),
          verifier: o.verifier ?? world.verifier,
        };
        out.push(r);
      }
      return out;
    },
  };
}

const times = (v: VariantSpec | undefined) => Number(v?.layers[0]?.params.times ?? 0);

/** A baseline in which the target re-keys a lost refund in refund-lost-reply and passes plain refunds. */
function baseline(): TrialRecord[] {
  const rekey = (id: string) =>
    fakeRecord(
      id,
      [
        {
          tool: "issue_refund",
          args: { order_id: "O1", idempotency_key: "k" },
          result: err("timeout", true),
        },
        {
          tool: "issue_refund",
          args: { order_id: "O1", idempotency_key: "k-2" },
          result: ok({ refund_id: "R2" }),
        },
        { tool: "close_ticket", result: ok() },
      ],
      { family: "refund-lost-reply", violations: [{ code: "duplicate_refund", step: 1, detail: "" }] },
    );
  const clean = (id: string) =>
    fakeRecord(
      id,
      [
        {
          tool: "issue_refund",
          args: { order_id: "O1", idempotency_key: "k" },
          result: ok({ refund_id: "R1" }),
        },
        { tool: "close_ticket", result: ok() },
      ],
      { family: "refund", outcome: "passed" },
    );
  return [rekey("b1"), rekey("b2"), clean("b3"), clean("b4"), clean("b5")];
}

describe("the band rule", () => {
  it("stops outside once the interval misses the band, inside once it fits the band plus slack", () => {
    assert.equal(bandPosition(8, 8).position, "outside");
    assert.equal(bandPosition(0, 8).position, "outside");
    assert.equal(bandPosition(4, 8).position, "inside");
    assert.equal(bandPosition(3, 6).position, "undecided");
    assert.equal(bandPosition(6, 16).position, "undecided");
    assert.equal(bandPosition(9, 24).position, "inside");
    // a narrower band with no slack needs far more rollouts than 50
    assert.equal(
      bandPosition(25, 50, { band: [0.4, 0.6], slack: 0, confidence: 0.95 }).position,
      "undecided",
    );
    const { ci } = bandPosition(12, 24);
    assert.ok(ci[0] < 0.5 && ci[1] > 0.5);
  });

  it("bisects a knob towards the band and stops when no value is left untried", () => {
    const p: LayersProposal = {
      kind: "layers",
      layers: [{ id: "rule.lose-reply-after-commit@1", params: { tool: "t", times: 1 } }],
      rationale: "",
      knob: { layer: 0, param: "times", min: 1, max: 6, integer: true },
    };
    const s0 = startSearch(p);
    assert.ok(s0);
    const a = refineKnob(p, s0, "harder");
    assert.equal(a?.value, 4);
    const b = a && refineKnob(a.proposal, a.search, "easier");
    assert.equal(b?.value, 2);
    const c = b && refineKnob(b.proposal, b.search, "harder");
    assert.equal(c?.value, 3);
    assert.equal(c && refineKnob(c.proposal, c.search, "easier"), undefined, "2 was tried already");
  });
});

describe("validation decisions", () => {
  it("REFINE bisects the fault's intensity until the target's rate is in the band, within the budget", async () => {
    const rates: Record<number, number> = { 1: 1, 2: 0.5, 3: 0.25 };
    const rollouts = fakeRollouts({ rate: (v) => rates[times(v)] ?? 0, baseline: baseline() });
    const r = await rig({ id: "refine", rollouts, designer: templateDesigner() });
    assert.equal(r.diagnoses[0].pattern, "retry-new-key-after-timeout");
    const decisions = r.candidates.map((c) => [times(c.variant), c.decision]);
    assert.deepEqual(decisions, [
      [1, "REFINE"],
      [4, "REFINE"],
      [2, "ACCEPT"],
    ]);
    assert.deepEqual(r.candidates[2].refinements, ["times 1 -> 4", "times 4 -> 2"]);
    assert.deepEqual(r.candidates[2].tasks.families, ["refund"], "validated where the write is still clean");
    assert.ok(r.rollouts.validation <= 50, `${r.rollouts.validation} validation rollouts`);
    assert.equal(r.accepted.length, 1);
    const v = r.candidates[2].validation;
    assert.ok(v && v.knownGood.passed === v.knownGood.trials && v.changesOutcomes && v.verifierUnchanged);
    // validation never reuses the baseline's seeds
    assert.ok(rollouts.requests.filter((q) => q.variant).every((q) => q.seed >= 1000));
  });

  it("a weakness whose variants never reach the band ends in REJECT within its budget, each decision recorded with why", async () => {
    const recorded: { decision?: string; reason?: string; provenance: Record<string, unknown> }[] = [];
    const rollouts = fakeRollouts({ rate: () => 1, baseline: baseline() });
    const r = await rig({
      id: "spent",
      rollouts,
      designer: templateDesigner(),
      budgetPerWeakness: 30,
      record: async (c, provenance) => {
        recorded.push({ decision: c.decision, reason: c.reason, provenance });
      },
    });
    assert.equal(r.accepted.length, 0);
    assert.ok(r.rollouts.validation <= 30);
    const last = r.candidates[r.candidates.length - 1];
    assert.equal(last.decision, "REJECT");
    assert.match(last.reason ?? "", /budget/);
    assert.equal(recorded.length, r.candidates.length);
    assert.equal(recorded[recorded.length - 1].provenance.decision, "REJECT");
    assert.deepEqual(recorded[0].provenance.evidenceTrials, ["b1", "b2"]);
  });

  it("REJECTs an unsolvable candidate, a changed verifier, and a variant that changes nothing", async () => {
    const variant: VariantSpec = {
      world: world.id,
      layers: [{ id: "rule.disable-tool@1", params: { tool: "issue_refund" } }],
    };
    const tasks = { families: ["refund"], difficulties: [1, 2], base: { trials: 6, passed: 6 } };
    const base = { id: "v", variant, tasks, remaining: 50, refinable: true };
    const unsolvable = await validateCandidate({
      ...base,
      rollouts: fakeRollouts({ rate: () => 0.5, unsolvable: () => true }),
    });
    assert.equal(unsolvable.decision, "REJECT");
    assert.match(unsolvable.reason, /unsolvable: the known-good policy failed/);
    assert.equal(unsolvable.validation.stop, "unsolvable");
    const judged = await validateCandidate({
      ...base,
      rollouts: fakeRollouts({ rate: () => 0.5, verifier: "verify.other@1" }),
    });
    assert.equal(judged.decision, "REJECT");
    assert.equal(judged.validation.verifierUnchanged, false);
    const same = await validateCandidate({
      ...base,
      tasks: { ...tasks, base: { trials: 6, passed: 3 } },
      rollouts: fakeRollouts({ rate: () => 0.5 }),
    });
    assert.equal(same.decision, "REJECT");
    assert.match(same.reason, /no different from the base world/);
    const fine = await validateCandidate({ ...base, rollouts: fakeRollouts({ rate: () => 0.5 }) });
    assert.equal(fine.decision, "ACCEPT");
  });

  it("REJECTs a deliberately unsolvable candidate on the real world (the refund tool disabled)", async () => {
    const rollouts = await rolloutsFor("order-ops@1", plantedAgent("order-rekey"));
    const v = await validateCandidate({
      id: "unsolvable-real",
      variant: {
        world: "order-ops@1",
        layers: [{ id: "rule.disable-tool@1", params: { tool: "issue_refund" } }],
      },
      tasks: { families: ["refund"], difficulties: [1, 2, 3], base: { trials: 6, passed: 6 } },
      rollouts,
      remaining: 50,
      refinable: false,
    });
    assert.equal(v.decision, "REJECT");
    assert.equal(v.validation.knownGood.passed, 0);
    assert.ok(v.validation.knownGood.trials > 0);
    assert.match(v.reason, /known-good/);
    assert.ok(v.targetRollouts <= 8, "stopped at the first batch");
  });
});
