/**
 * `auditEnvironment` and `proving audit`: a sound world passes every check; each deliberately broken
 * world fails with the right finding (and only the checks its break touches are named); the shipped
 * code-repair world passes; a world served by `proving serve` is audited over the wire; the CLI
 * prints the table or JSON and exits 1 on a failed check, 2 on a bad target.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { type AuditCheckId, type AuditReport, auditEnvironment } from "../../src/audit/index.ts";
import type { Environment } from "../../src/core/contracts.ts";
import { createGym } from "../../src/gym/index.ts";
import { connectRemote, startServer, worldTarget } from "../../src/serve/index.ts";
import { parseJson, REPO_ROOT, runCli } from "../support/cli.ts";
import { type Break, vaultWorld } from "./broken-worlds.ts";

const failed = (r: AuditReport) => r.findings.filter((f) => f.status === "failed").map((f) => f.id);
const quick = { seeds: [0, 1], difficulties: [1, 2], fuzzPerTool: 100, signalSeeds: 6 };

async function audit(broken: Break): Promise<AuditReport> {
  const world = vaultWorld(broken);
  const gym = createGym({ worlds: [world] });
  return auditEnvironment({ ...quick, world, restore: gym.registry });
}

describe("proving audit", () => {
  test("a sound world passes every check", async () => {
    const r = await audit("none");
    assert.deepEqual(failed(r), [], JSON.stringify(r.findings, null, 1));
    assert.equal(r.ok, true);
    assert.equal(r.findings.length, 9);
  });

  const expected: [Break, AuditCheckId][] = [
    ["null-passes", "null-agent-fails"],
    ["nondeterministic-verifier", "verdict-deterministic"],
    ["leaky-reset", "reset-clean"],
    ["crashing-tool", "bad-input-coded"],
    ["leaky-tool", "hidden-unreachable"],
  ];
  for (const [broken, finding] of expected) {
    test(`${broken}: fails ${finding}, with its evidence`, async () => {
      const r = await audit(broken);
      assert.equal(r.ok, false);
      assert.ok(failed(r).includes(finding), `${broken}: failed ${failed(r).join(", ")}`);
      const f = r.findings.find((x) => x.id === finding)!;
      assert.ok(f.evidence.length > 0 && f.evidence[0].length > 0);
      // the break does not spill into the checks it has nothing to do with
      assert.ok(
        !failed(r).includes("known-good-solves") || broken === "nondeterministic-verifier",
        failed(r).join(),
      );
    });
  }

  test("bad calls answered with a world's own codes: failed for our contract, passed with badCallCodes any", async () => {
    const world = vaultWorld("own-codes");
    const restore = createGym({ worlds: [world] }).registry;
    const ours = await auditEnvironment({ ...quick, world, restore });
    assert.deepEqual(failed(ours), ["bad-input-coded"]);
    assert.match(
      ours.findings.find((f) => f.id === "bad-input-coded")!.evidence.join("\n"),
      /execution_error/,
    );
    const any = await auditEnvironment({ ...quick, world, restore, badCallCodes: "any" });
    assert.deepEqual(failed(any), [], JSON.stringify(any.findings, null, 1));
    const evidence = any.findings.find((f) => f.id === "bad-input-coded")!.evidence.join("\n");
    assert.match(evidence, /answered with codes: execution_error ×\d+/);
    // a wrong-typed value read as a lax validator reads it ("2" → 2) is not malformed input accepted,
    // for a world whose codes are its own; for ours it is
    const lax = vaultWorld("lax-types");
    const laxRestore = createGym({ worlds: [lax] }).registry;
    const laxOurs = await auditEnvironment({ ...quick, world: lax, restore: laxRestore });
    assert.match(
      laxOurs.findings.find((f) => f.id === "bad-input-coded")!.evidence.join("\n"),
      /accepted malformed arguments/,
    );
    const laxAny = await auditEnvironment({ ...quick, world: lax, restore: laxRestore, badCallCodes: "any" });
    assert.deepEqual(failed(laxAny), [], JSON.stringify(laxAny.findings, null, 1));
    assert.match(
      laxAny.findings.find((f) => f.id === "bad-input-coded")!.evidence.join("\n"),
      /\d+ accepted once a wrong-typed value was converted/,
    );
    // a throw is never a coded answer, whatever codes the world may use
    const crashing = vaultWorld("crashing-tool");
    const thrown = await auditEnvironment({
      ...quick,
      world: crashing,
      restore: createGym({ worlds: [crashing] }).registry,
      badCallCodes: "any",
    });
    assert.ok(failed(thrown).includes("bad-input-coded"), failed(thrown).join());
  });

  test("the audit is deterministic: the same target twice gives the same report", async () => {
    assert.deepEqual(await audit("none"), await audit("none"));
  });

  test("a world served by proving serve is audited over the wire", async () => {
    const world = vaultWorld("none");
    const server = await startServer({ target: worldTarget(world), port: 0 });
    try {
      const remote = await connectRemote(server.url);
      const r = await auditEnvironment({
        ...quick,
        seeds: [0],
        world,
        environment: remote.environment,
        label: remote.url,
        dispose: (env: Environment) => (env as unknown as { close(): Promise<void> }).close(),
      });
      await remote.close();
      assert.equal(r.target, remote.url);
      // a remote world declares no inspection: reset cleanliness cannot be checked over the wire
      assert.equal(r.findings.find((f) => f.id === "reset-clean")?.status, "not_checkable");
      // the known findings of proving serve's action parser (see test/conformance/remote.test.ts) are
      // reported as bad input; nothing else fails
      assert.deepEqual(
        failed(r).filter((id) => id !== "bad-input-coded"),
        [],
        JSON.stringify(r.findings, null, 1),
      );
      for (const e of r.findings.find((f) => f.id === "bad-input-coded")!.evidence)
        if (r.findings.find((f) => f.id === "bad-input-coded")!.status === "failed")
          assert.match(e, /__proto__|200 characters|over the limit of|bad input/, e);
      assert.equal(r.findings.find((f) => f.id === "null-agent-fails")?.status, "passed");
    } finally {
      await server.close();
    }
  });

  test("proving audit code-repair@1 --json passes; a broken world from a plugin exits 1; a bad target exits 2", async () => {
    const ok = await runCli([
      "audit",
      "code-repair@1",
      "--json",
      "--seeds",
      "1",
      "--difficulty",
      "1",
      "--fuzz",
      "50",
      "--signal-seeds",
      "3",
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    const report = parseJson<AuditReport>(ok);
    assert.equal(report.ok, true);
    assert.equal(report.world, "code-repair@1");

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-audit-"));
    const plugin = path.join(dir, "plugin.mts");
    const helper = path.join(REPO_ROOT, "test/audit/broken-worlds.ts");
    fs.writeFileSync(
      plugin,
      `import { vaultWorld } from ${JSON.stringify(helper)};\nexport default { worlds: [vaultWorld("null-passes")] };\n`,
    );
    const gymFile = path.join(dir, "gym.json");
    fs.writeFileSync(
      gymFile,
      JSON.stringify({ schemaVersion: 1, plugins: [plugin], worlds: ["vault-null-passes@1"] }),
    );
    const bad = await runCli([
      "audit",
      "vault-null-passes@1",
      "--gym",
      gymFile,
      "--seeds",
      "1",
      "--fuzz",
      "20",
      "--signal-seeds",
      "2",
    ]);
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stdout, /FAIL null-agent-fails/);

    const none = await runCli(["audit", "no-such-world"]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /bad_audit_options/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
