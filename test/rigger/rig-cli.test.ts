import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { openCurriculumStore } from "../../src/curriculum/curriculum-store.ts";
import { parseJson, runCli } from "../support/cli.ts";
import { type PostgresServer, postgresSkip, startPostgres } from "../support/services.ts";
import { gym } from "./support.ts";

interface RigJson {
  diagnoses: {
    pattern: string;
    axis: string;
    families: string[];
    violations: string[];
    evidence: { trialId: string; steps: number[] }[];
  }[];
  candidates: {
    variant: unknown;
    variant_id: string;
    layers: string[];
    designer: string;
    decision: string;
    reason: string;
    target: { trials: number; passed: number; rate: number; ci: [number, number] };
    known_good: { trials: number; passed: number };
    tasks: { families: string[]; difficulties: number[] };
  }[];
  accepted: unknown[];
  rollouts: { baseline: number; validation: number; total: number };
}

const PLUGIN = fileURLToPath(new URL("./agents/planted-plugin.ts", import.meta.url));

/** A gym file in `dir`: the test gym plus the planted agents' plugin. */
function plantedGymFile(dir: string): string {
  const file = path.join(dir, "gym.json");
  const desc = gym.describe();
  fs.writeFileSync(
    file,
    JSON.stringify({ ...desc, plugins: [PLUGIN], agentKinds: [...desc.agentKinds, "planted"] }),
  );
  return file;
}

/** `proving rig` of order-ops@1 with the planted re-keying agent, recording into `store`. */
const rigArgs = (gymFile: string, id: string, store: string, report: string) => [
  "--gym",
  gymFile,
  "rig",
  "--world",
  "order-ops@1",
  "--agent",
  "planted:order-rekey",
  "--id",
  id,
  "--store",
  store,
  "--report",
  report,
  "--json",
];

describe("proving rig", () => {
  let dir: string;
  let gymFile: string;
  let store: string;
  let out: RigJson;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "rig-cli-"));
    gymFile = plantedGymFile(dir);
    store = path.join(dir, "store.db");
    const r = await runCli(rigArgs(gymFile, "clirig", store, path.join(dir, "rig.html")));
    assert.equal(r.code, 0, r.stderr);
    out = parseJson<RigJson>(r);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("prints diagnoses, candidates with their validation, the accepted variants and the rollouts used", () => {
    assert.equal(out.diagnoses[0].pattern, "retry-new-key-after-timeout");
    assert.deepEqual(Object.keys(out.diagnoses[0]).slice(0, 5), [
      "pattern",
      "axis",
      "families",
      "difficulties",
      "violations",
    ]);
    assert.ok(out.diagnoses[0].evidence.length > 0);
    const c = out.candidates[0];
    for (const k of ["variant", "layers", "designer", "decision", "reason", "target", "known_good"])
      assert.ok(k in c, k);
    assert.equal(c.designer, "template");
    assert.equal(out.accepted.length, 1);
    assert.equal(out.rollouts.total, out.rollouts.baseline + out.rollouts.validation);
    assert.ok(out.rollouts.validation <= 50);
    const accepted = out.candidates.find((x) => x.decision === "ACCEPT");
    assert.ok(accepted && accepted.known_good.passed === accepted.known_good.trials);
    assert.ok(accepted.target.ci[0] <= accepted.target.rate && accepted.target.rate <= accepted.target.ci[1]);
  });

  it("the accepted variant runs as it is with proving run --variant", async () => {
    const r = await runCli([
      "run",
      "--variant",
      JSON.stringify(out.accepted[0]),
      "--agent",
      "careful",
      "--family",
      "refund",
      "--difficulty",
      "2",
      "--trials",
      "3",
      "--store",
      store,
      "--no-report",
      "--no-progress",
      "--json",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const run = parseJson<{ planned: number; trials: { passed: boolean; variant?: string }[] }>(r);
    assert.equal(run.planned, 3);
    assert.ok(
      run.trials.every(
        (t) => t.passed && t.variant === out.candidates.find((c) => c.decision === "ACCEPT")?.variant_id,
      ),
    );
  });

  it("stores the accepted variant for the curriculum's dynamic split, with its provenance", async () => {
    const history = await openCurriculumStore(store);
    try {
      const accepted = await history.listVariants({ status: "accepted" });
      assert.equal(accepted.length, 1);
      const p = accepted[0].provenance as {
        source: string;
        decision: string;
        evidenceTrials: string[];
        template: string;
      };
      assert.equal(p.source, "rigger");
      assert.equal(p.decision, "ACCEPT");
      assert.equal(p.template, "template.lost-reply@1");
      assert.deepEqual(
        p.evidenceTrials,
        out.diagnoses[0].evidence.map((e) => e.trialId),
      );
    } finally {
      await history.close();
    }
  });

  it("writes a report whose rigger section links the evidence trajectories and draws each interval against the band", () => {
    const html = fs.readFileSync(path.join(dir, "rig.html"), "utf8");
    assert.match(html, /<section id="rigger">/);
    for (const e of out.diagnoses[0].evidence)
      assert.ok(html.includes(`href="#trial=${e.trialId}"`), e.trialId);
    assert.equal((html.match(/class="rig-ci"/g) ?? []).length, out.candidates.length);
  });

  it("refuses a bad band", async () => {
    const r = await runCli([
      "rig",
      "--world",
      "order-ops@1",
      "--agent",
      "careful",
      "--band",
      "0.7,0.2",
      "--store",
      store,
    ]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--band/);
  });
});

describe("proving rig --store postgres://", { skip: postgresSkip() }, () => {
  let server: PostgresServer;
  let dir: string;
  before(async () => {
    server = await startPostgres();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "rig-cli-pg-"));
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("records the trials and the decided variants in the Postgres store", async () => {
    const url = await server.createDatabase("rig");
    const r = await runCli(rigArgs(plantedGymFile(dir), "pgrig", url, path.join(dir, "rig.html")));
    assert.equal(r.code, 0, r.stderr);
    const out = parseJson<RigJson>(r);
    const history = await openCurriculumStore(url);
    try {
      const stored = await history.listVariants();
      const decided = out.candidates.filter((c) => c.decision !== "REFINE");
      assert.ok(decided.length > 0);
      assert.deepEqual(
        [...new Set(stored.map((v) => v.variantId))].sort(),
        [...new Set(decided.map((c) => c.variant_id))].sort(),
      );
      const accepted = await history.listVariants({ status: "accepted" });
      assert.equal(accepted.length, out.accepted.length);
    } finally {
      await history.close();
    }
  });
});
