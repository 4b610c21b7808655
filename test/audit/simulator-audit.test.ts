/**
 * The simulator audit flags a deliberately over-helpful simulator (it volunteers the address and the
 * model) and a capitulating one (it agrees to any read-back), and passes the shipped scripted
 * personas; `proving audit`'s `simulator-audit` check runs it for a world that plays customers.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mentionsFact } from "../../src/audit/fact-mention.ts";
import { auditCustomerSimulator, auditEnvironment, formatSimulatorAudit } from "../../src/audit/index.ts";
import { deviceSupportV2, deviceSupportV2World } from "../../src/worlds/device-support/index.ts";
import {
  type CustomerSimulator,
  PERSONAS,
  scriptedCustomer,
  scriptedReply,
} from "../../src/worlds/shared/index.ts";
import { capitulating, overHelpful } from "../support/bad-customers.ts";

const LONG: Record<string, string> = { St: "Street", Ave: "Avenue", Rd: "Road", Ln: "Lane", Ct: "Court" };

/** Volunteers its address and model in other words ("number 68 on Station Avenue"), declaring no act. */
const paraphrasing: CustomerSimulator = {
  id: "paraphrasing",
  reply(turn) {
    const r = scriptedReply(turn);
    const { address, model } = turn.profile.facts;
    const [, n, street] = /^(\d+)\s+(.*)$/.exec(String(address)) ?? ["", "", String(address)];
    const spelled = String(street).replace(/\b(St|Ave|Rd|Ln|Ct)\b/g, (m) => LONG[m]);
    const [, brand, version] = /^(.*?)\s+(\S+)$/.exec(String(model)) ?? ["", String(model), ""];
    return {
      ...r,
      text: `${r.text} (I live at number ${n} on ${spelled}; the phone is from the ${brand} line, the ${version} one.)`,
    };
  },
};

const world = deviceSupportV2World({ simulators: [overHelpful, capitulating] });

describe("simulator audit", () => {
  test("the shipped scripted personas pass: no leak, no capitulation, consistent, never-asking fails", async () => {
    const r = await auditCustomerSimulator({ world: deviceSupportV2, simulator: scriptedCustomer });
    assert.equal(r.ok, true, r.problems.join("\n"));
    assert.deepEqual(
      r.personas.map((p) => p.persona),
      [...PERSONAS],
    );
    for (const p of r.personas) {
      assert.ok(p.leakage.n > 0 && p.capitulation.n > 0 && p.inconsistency.n > 0 && p.weakAgent.n > 0);
      assert.equal(p.leakage.count + p.capitulation.count + p.inconsistency.count + p.weakAgent.count, 0);
      // an interval, not a point: zero of n is [0, hi] with hi > 0
      assert.ok(p.leakage.lo === 0 && p.leakage.hi > 0 && p.leakage.hi < 0.2);
    }
    assert.match(formatSimulatorAudit(r), /cooperative .*0% \[0-\d+\]/);
  });

  test("an over-helpful simulator is flagged for leakage, and only for that", async () => {
    const r = await auditCustomerSimulator({
      world,
      simulator: overHelpful,
      personas: ["cooperative", "terse"],
    });
    assert.equal(r.ok, false);
    for (const p of r.personas) {
      assert.equal(p.leakage.count, p.leakage.n);
      assert.ok(p.leakage.lo > 0.5);
      assert.equal(p.capitulation.count, 0);
    }
    assert.ok(
      r.problems.every((x) => /leaks facts/.test(x)),
      r.problems.join("\n"),
    );
  });

  test("a simulator that paraphrases the hidden facts is flagged for leakage (issue 27)", async () => {
    const r = await auditCustomerSimulator({
      world: deviceSupportV2World({ simulators: [paraphrasing] }),
      simulator: paraphrasing,
      personas: ["cooperative"],
    });
    assert.equal(r.ok, false);
    const [p] = r.personas;
    assert.equal(p.leakage.count, p.leakage.n, JSON.stringify(p.examples));
    assert.ok(r.problems.some((x) => /leaks facts/.test(x)));
  });

  test("mentionsFact compares normalised facts: numbers and the words around them", () => {
    assert.equal(mentionsFact("It's number 68 on Station Avenue.", "68 Station Ave"), true);
    assert.equal(mentionsFact("the sixty-eight bus", "68 Station Ave"), false);
    assert.equal(mentionsFact("I waited 68 minutes", "68 Station Ave"), false);
    assert.equal(mentionsFact("a phone from the iphone line, the 14 one", "iPhone 14"), true);
    assert.equal(mentionsFact("model 14 of some brand", "iPhone 14"), false);
  });

  test("a capitulating simulator is flagged for agreeing to wrong read-backs", async () => {
    const r = await auditCustomerSimulator({ world, simulator: capitulating, personas: ["adversarial"] });
    assert.equal(r.ok, false);
    const [p] = r.personas;
    assert.equal(p.capitulation.count, p.capitulation.n);
    assert.equal(p.leakage.count, 0);
    assert.ok(r.problems.some((x) => /agrees to what the customer should refuse/.test(x)));
  });

  test("auditEnvironment reports the simulator-audit check for a world that plays customers", async () => {
    const quick = { seeds: [0], difficulties: [1], fuzzPerTool: 20, signalSeeds: 2, randomEpisodes: 1 };
    const bad = await auditEnvironment({ ...quick, world });
    const f = bad.findings.find((x) => x.id === "simulator-audit");
    assert.equal(f?.status, "failed");
    assert.ok(f.evidence.some((e) => e.includes("over-helpful/cooperative: leaks")));
    assert.ok(f.evidence.some((e) => e.includes("capitulating/cooperative: agrees")));
    assert.ok(!f.evidence.some((e) => e.startsWith("scripted/")), "the scripted personas are not flagged");
  });
});
