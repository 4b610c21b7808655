/**
 * `proving audit URL` against a default `proving serve`, both real processes on 127.0.0.1: the
 * server declares its request limits in `/metadata`, the audit's fuzzer and random walks keep within
 * them, and every check passes (or is not checkable over the wire, with its reason). And a checker
 * told nothing of a server's limits counts the server's over-limit refusals as the transport's, not
 * as the world throwing.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import type { AuditReport } from "../../src/audit/index.ts";
import { connectRemote, type RemoteEnvironment, startServer, worldTarget } from "../../src/serve/index.ts";
import { checkEnvironment } from "../../src/testing/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { firstLine } from "../serve/play.ts";
import { parseJson, runCli, spawnCli } from "../support/cli.ts";

const serve = (world: string): ChildProcess =>
  spawnCli(["serve", "--world", world, "--port", "0", "--json", "--heartbeat-s", "0"]);

test("proving audit passes a default proving serve (both over real processes)", async (t) => {
  const child = serve("device-support@1");
  try {
    const { url } = JSON.parse(await firstLine(child)) as { url: string };
    const meta = (await (await fetch(`${url}/metadata`)).json()) as { limits?: unknown };
    assert.deepEqual(meta.limits, {
      max_body_bytes: 1_048_576,
      max_json_depth: 64,
      max_string_length: 65_536,
    });
    const r = await runCli(["audit", url, "--json"]);
    const report = parseJson<AuditReport>(r);
    t.diagnostic(JSON.stringify(report.findings.map((f) => [f.id, f.status, f.evidence[0]])));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(report.ok, true);
    for (const f of report.findings) {
      assert.ok(f.status === "passed" || f.status === "not_checkable", `${f.id}: ${f.evidence.join("; ")}`);
      if (f.status === "not_checkable") assert.ok(f.evidence.length > 0 && f.evidence[0].length > 0, f.id);
    }
    for (const id of ["replay-deterministic", "bad-input-coded"])
      assert.equal(report.findings.find((f) => f.id === id)?.status, "passed", id);
  } finally {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
});

test("a server's over-limit refusal is the transport's, not the world throwing", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0, maxStringLength: 256 });
  try {
    const remote = await connectRemote(server.url);
    assert.deepEqual(remote.limits, { maxActionBytes: 1_048_576 - 1024, maxStringLength: 256, maxDepth: 62 });
    // told nothing of the limits: the fuzzer sends long strings, the server refuses them with a code
    const report = await checkEnvironment(remote.environment, {
      world: deviceSupport,
      families: ["needs-approval"],
      seeds: [0],
      difficulties: [1],
      fuzzPerTool: 40,
      kinds: ["bad-input", "determinism"],
      dispose: (env) => (env as RemoteEnvironment).close(),
    });
    await remote.close();
    for (const c of report.checks) assert.equal(c.status, "passed", `${c.name}: ${c.details.join("; ")}`);
    const notes = report.checks.filter((c) => c.kind === "bad-input").flatMap((c) => c.details);
    assert.ok(
      notes.some((d) => /refused by the transport as past its limits/.test(d)),
      `no transport refusal noted: ${notes.join("; ")}`,
    );
  } finally {
    await server.close();
  }
});
