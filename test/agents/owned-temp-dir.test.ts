/**
 * Temporary directories of agents (a module agent's bundle, a program's private directory) carry the
 * pid of the process that made them; the next process that makes one removes those a killed process
 * left (its pid is gone, the directory is old), and nothing that may still be in use.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { ownedTempDir, STALE_AFTER_MS, sweepStale } from "../../src/agents/owned-temp-dir.ts";

const parent = fs.mkdtempSync(path.join(os.tmpdir(), "proving-owned-"));
after(() => fs.rmSync(parent, { recursive: true, force: true }));

/** A pid no process has now: that of a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(child.stdout);
}

function makeDir(name: string, ageMs: number): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "agent.mjs"), "export default {}");
  const t = (Date.now() - ageMs) / 1000;
  fs.utimesSync(dir, t, t);
  return dir;
}

test("a killed process's old directories are removed; live, fresh and foreign ones stay", () => {
  const dead = deadPid();
  const stale = makeDir(`proving-agent-build-${dead}-aaaaaa`, STALE_AFTER_MS * 2);
  const fresh = makeDir(`proving-agent-build-${dead}-bbbbbb`, 1000);
  const mine = makeDir(`proving-agent-build-${process.pid}-cccccc`, STALE_AFTER_MS * 2);
  const parentPid = makeDir(`proving-agent-build-${process.ppid}-dddddd`, STALE_AFTER_MS * 2);
  const other = makeDir(`something-else-${dead}-eeeeee`, STALE_AFTER_MS * 2);
  const unnumbered = makeDir("proving-agent-build-ffffff", STALE_AFTER_MS * 2);

  assert.equal(sweepStale("proving-agent-build-", parent, Date.now()), 1);
  assert.equal(fs.existsSync(stale), false, "dead pid, old: removed");
  for (const kept of [fresh, mine, parentPid, other, unnumbered]) assert.ok(fs.existsSync(kept), kept);
});

test("ownedTempDir names its directory with its pid and sweeps its prefix once", () => {
  const dead = deadPid();
  const stale = makeDir(`proving-agent-${dead}-gggggg`, STALE_AFTER_MS * 2);
  const dir = ownedTempDir("proving-agent-", parent);
  assert.match(path.basename(dir), new RegExp(`^proving-agent-${process.pid}-`));
  assert.equal(fs.existsSync(stale), false);
  // a later call in the same process does not sweep again
  const again = makeDir(`proving-agent-${dead}-hhhhhh`, STALE_AFTER_MS * 2);
  ownedTempDir("proving-agent-", parent);
  assert.ok(fs.existsSync(again));
});
