/**
 * The conformance checks run on a remote world: a `proving serve`-style server started here on
 * 127.0.0.1 (and stopped here), played through `connectRemote`. A remote environment declares no
 * capability and its saved state cannot be restored, so the reset and save/restore checks are
 * not checkable; everything else runs over the wire.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { connectRemote, type RemoteEnvironment, startServer, worldTarget } from "../../src/serve/index.ts";
import { CHECK_KINDS, checkEnvironment, formatReport } from "../../src/testing/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { eventually } from "../serve/play.ts";

/** In the world's order (the report's). */
const FAMILIES = ["needs-approval", "denied", "lost-reply"];

test("a remote world: reset and save/restore are not checkable, the other checks run over the wire", async (t) => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
  try {
    const remote = await connectRemote(server.url);
    const report = await checkEnvironment(remote.environment, {
      world: deviceSupport,
      families: FAMILIES,
      seeds: [0],
      difficulties: [1, 3],
      fuzzPerTool: 30,
      expectBackgroundJobs: true,
      // the server's limits: 1 MiB frames, strings of at most 65,536 characters
      maxActionBytes: 512 * 1024,
      maxStringLength: 65_536,
      dispose: (env) => (env as RemoteEnvironment).close(),
      // the admissible actions over the wire have their own test below
      kinds: CHECK_KINDS.filter((k) => k !== "admissible"),
    });
    await remote.close();
    t.diagnostic(formatReport(report, { passed: false }));
    assert.equal(report.environment, deviceSupport.id);
    assert.deepEqual(report.capabilities, {
      inspection: false,
      delivery: false,
      timeControl: false,
      setup: false,
      admissible: true,
      restore: false,
    });
    const notCheckable = report.checks.filter((c) => c.status === "not_checkable");
    assert.deepEqual(
      notCheckable.map((c) => c.name),
      [
        ...FAMILIES.map((f) => `save/restore: ${f}: restore at any step and continue → identical results`),
        ...FAMILIES.map((f) => `reset: ${f}: mid-episode reset leaves no old job and the fresh state hash`),
        "reset: some mid-episode reset has background jobs pending",
      ],
    );
    for (const c of notCheckable) assert.match(c.reason ?? "", /no way to restore|declares no inspection/);
    // the rest ran, and all of it passes: bad input over the wire is answered as in a local run
    // (an own `__proto__` key of args and a 10,000-character tool name are invalid_argument observations)
    const ran = report.checks.filter((c) => c.status !== "not_checkable");
    for (const kind of ["definition", "tasks", "tools", "determinism", "policies", "bad-input"] as const) {
      const of = ran.filter((c) => c.kind === kind);
      assert.ok(of.length > 0, kind);
      for (const c of of) assert.equal(c.status, "passed", `${c.name}: ${c.details.join("; ")}`);
    }
    assert.equal(
      ran.filter((c) => c.kind === "bad-input").length,
      deviceSupport.create().spec.tools.length + 1,
    );
    // every session the checker opened was given back
    await eventually(() => server.sessions.size === 0, 10_000, "remote sessions closed");
  } finally {
    await server.close();
  }
});

// Found by the admissible check (issue 25): a remote environment passed the server's lists through,
// but not the world's canonicalisation, so the known-good policy's own idempotency keys and free texts
// were not found in the lists over the wire. The server now sends how its world spells actions
// (`metadata.admissible_canonical`) with each list.
test("a remote world's admissible actions pass the admissible check over the wire", async () => {
  const server = await startServer({ target: worldTarget(deviceSupport), port: 0 });
  try {
    const remote = await connectRemote(server.url);
    const report = await checkEnvironment(remote.environment, {
      world: deviceSupport,
      families: ["lost-reply"],
      seeds: [0],
      difficulties: [1],
      kinds: ["admissible"],
      dispose: (env) => (env as RemoteEnvironment).close(),
    });
    await remote.close();
    assert.equal(report.capabilities.admissible, true);
    assert.equal(report.ok, true, formatReport(report, { passed: false }));
  } finally {
    await server.close();
  }
});
