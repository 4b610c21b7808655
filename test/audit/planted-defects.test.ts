/**
 * `proving audit` finds what it used to miss (issue 27): each planted defect — a short hidden code or
 * a hidden number in observations (as is, base64, reversed, digits spelled), a tool named `answer`
 * that tells the code, a tool that throws on a schema-valid value (a lone `%`), a verifier that judges
 * keywords, one a blind submit passes — fails its finding; a clean world with a tool named `answer`
 * passes (the name is a warning; a probe decides). The built-in worlds declare hidden params.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { type AuditCheckId, type AuditReport, auditEnvironment } from "../../src/audit/index.ts";
import { createGym, defaultGym } from "../../src/gym/index.ts";
import { REPO_ROOT, runCli } from "../support/cli.ts";
import { type Break, vaultWorld } from "./broken-worlds.ts";

const failed = (r: AuditReport) => r.findings.filter((f) => f.status === "failed").map((f) => f.id);
const quick = { seeds: [0, 1], difficulties: [1, 2], fuzzPerTool: 60, signalSeeds: 6 };

async function audit(broken: Break): Promise<AuditReport> {
  const world = vaultWorld(broken);
  const gym = createGym({ worlds: [world] });
  return auditEnvironment({ ...quick, world, restore: gym.registry });
}

describe("proving audit: planted defects (issue 27)", () => {
  const planted: [Break, AuditCheckId, RegExp][] = [
    ["leaky-short", "hidden-unreachable", /hidden "k\w{7}"/],
    ["leaky-number", "hidden-unreachable", /hidden "48\d\d"/],
    ["leaky-base64", "hidden-unreachable", /\(base64\)/],
    ["leaky-reversed", "hidden-unreachable", /\(reversed\)/],
    ["leaky-spelled", "hidden-unreachable", /\(digits spelled\)/],
    ["answer-tool-leaks", "hidden-unreachable", /calling the tool answer answers the hidden/],
    ["throws-on-valid", "bad-input-coded", /schema-valid text = "%".*threw/],
    ["keyword-verifier", "null-agent-fails", /null-keywords passes/],
    ["blind-passes", "null-agent-fails", /blind-submit-\d+ passes/],
  ];
  for (const [broken, finding, evidence] of planted) {
    test(`${broken}: fails ${finding}`, async () => {
      const r = await audit(broken);
      assert.equal(r.ok, false);
      assert.ok(failed(r).includes(finding), `${broken}: failed ${failed(r).join(", ")}`);
      const f = r.findings.find((x) => x.id === finding)!;
      assert.match(f.evidence.join("\n"), evidence);
      assert.ok(!failed(r).includes("known-good-solves"), failed(r).join());
    });
  }

  test("a clean world with a tool named answer passes, with a warning", async () => {
    const r = await audit("answer-tool-clean");
    assert.deepEqual(failed(r), [], JSON.stringify(r.findings, null, 1));
    const f = r.findings.find((x) => x.id === "hidden-unreachable")!;
    assert.match(f.evidence.join("\n"), /warning: the tool answer is named for the verifier/);
  });

  test("device-support@1 and order-ops@1 declare hidden params", () => {
    const gym = defaultGym();
    for (const id of ["device-support@1", "order-ops@1", "code-repair@1"])
      assert.ok((gym.world(id).hiddenParams ?? []).length > 0, id);
  });

  test("proving audit exits 1 on every planted defect from a plugin and 0 on the clean control", async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-planted-"));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const plugin = path.join(dir, "plugin.mts");
    const helper = path.join(REPO_ROOT, "test/audit/broken-worlds.ts");
    const breaks = [...planted.map(([b]) => b), "answer-tool-clean" as Break];
    fs.writeFileSync(
      plugin,
      `import { vaultWorld } from ${JSON.stringify(helper)};\nexport default { worlds: ${JSON.stringify(breaks)}.map((b) => vaultWorld(b)) };\n`,
    );
    const gymFile = path.join(dir, "gym.json");
    const ids = breaks.map((b) => `vault-${b}@1`);
    fs.writeFileSync(gymFile, JSON.stringify({ schemaVersion: 1, plugins: [plugin], worlds: ids }));
    for (const [i, id] of ids.entries()) {
      const r = await runCli([
        "audit",
        id,
        "--gym",
        gymFile,
        "--seeds",
        "2",
        "--fuzz",
        "20",
        "--signal-seeds",
        "4",
      ]);
      const finding = planted[i]?.[1];
      if (finding) {
        assert.equal(r.code, 1, `${id}: ${r.stdout}${r.stderr}`);
        assert.match(r.stdout, new RegExp(`FAIL ${finding}`), id);
      } else assert.equal(r.code, 0, `${id}: ${r.stdout}${r.stderr}`);
    }
  });
});
