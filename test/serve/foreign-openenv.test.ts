/**
 * Servers we did not write: OpenEnv-protocol servers of our own in Python (stdlib only, written from
 * the protocol: test/serve/fixtures/openenv/guess_server.py), a clean one and three with a planted defect,
 * played by `proving run --remote URL --agent MODULE` and audited by `proving audit URL` through the
 * real CLI. The clean one passes every check it can; each planted one fails the check that must catch it.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { parseJson, REPO_ROOT, runCli } from "../support/cli.ts";
import {
  auditServer as audit,
  GUESS_SERVER,
  skipWithoutPython as skip,
  startOpenEnvServer,
} from "./openenv-fixture.ts";

const AGENT = path.join(REPO_ROOT, "test/serve/fixtures/openenv/bisect-agent.mjs");

const started: ChildProcess[] = [];

/** Starts the guess server with a defect on a free loopback port. */
function startServer(defect: string, ...more: string[]): Promise<string> {
  return startOpenEnvServer(started, GUESS_SERVER, ["--defect", defect, ...more]);
}

describe("foreign OpenEnv servers", { skip, timeout: 600_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-foreign-"));
  const store = path.join(dir, "store.db");
  /** `proving run --remote URL` with the bisecting module agent: its trials (the run must succeed). */
  const play = async (url: string, ...flags: string[]) => {
    const r = await runCli(["run", "--remote", url, "--agent", AGENT, ...flags, "--store", store, "--json"]);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const trials = parseJson<{ trials: { id: string; outcome: string }[] }>(r).trials;
    assert.ok(trials.length > 0);
    return trials;
  };
  after(() => {
    for (const child of started) child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("proving run --remote plays a foreign server with a module agent, reward-judged", async () => {
    const trials = await play(await startServer("none"), "--trials", "2");
    for (const t of trials) assert.equal(t.outcome, "passed", JSON.stringify(t));
    // the record says how it was judged: by reward and done, not by a verifier
    const shown = await runCli(["show", trials[0]!.id, "--store", store, "--json"]);
    const record = parseJson<{ verdict: { verifier: string; checks: { detail: string }[] } }>(shown);
    assert.equal(record.verdict.verifier, "reward-judged");
    assert.match(record.verdict.checks[0]!.detail, /total reward 1, done/);
  });

  for (const [flag, what] of [
    ["--typed", "a typed server (its /schema action as the one tool, `step`)"],
    ["--no-mcp-route", "an MCP-style server without POST /mcp (tools from a list_tools action)"],
  ] as const)
    test(`proving run --remote plays ${what}`, async () => {
      const trials = await play(await startServer("none", flag), "--trials", "1");
      for (const t of trials) assert.equal(t.outcome, "passed", JSON.stringify(t));
    });

  test("a server that takes one session at a time: trials past it wait for a slot, none fails for capacity", async () => {
    const url = await startServer("none", "--max-sessions", "1");
    const several = ["--trials", "2", "--concurrency", "3", "--max-steps"];
    const solved = await play(url, ...several, "40");
    assert.ok(solved.length >= 2);
    for (const t of solved) assert.equal(t.outcome, "passed", JSON.stringify(t));
    // episodes cut short by the step budget give their session back when their trial ends
    const cut = await play(url, ...several, "2");
    assert.ok(cut.length >= 2);
    for (const t of cut) assert.equal(t.outcome, "budget_exhausted", JSON.stringify(t));
  });

  test("a server that does not answer is a coded remote error", async () => {
    const r = await runCli(["run", "--remote", "http://127.0.0.1:9", "--agent", AGENT, "--store", store]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /\[remote_unreachable\]/);
  });

  test("proving audit passes the clean server; what needs a policy of ours is not checkable", async () => {
    const { code, findings } = await audit(await startServer("none"));
    assert.equal(code, 0, JSON.stringify(findings, null, 1));
    for (const id of [
      "null-agent-fails",
      "random-agent-fails",
      "replay-deterministic",
      "bad-input-coded",
      "hidden-unreachable",
      "session-isolation",
    ])
      assert.equal(findings[id]?.status, "passed", `${id}: ${JSON.stringify(findings[id])}`);
    // a wrong-typed argument is answered as OpenEnv's MCP servers do (execution_error): a coded answer
    assert.match(findings["bad-input-coded"]?.evidence.join("\n") ?? "", /execution_error ×\d+/);
    // and a wrong-typed one it reads as pydantic does ("42" → 42) is not counted as accepted bad input
    assert.match(
      findings["bad-input-coded"]?.evidence.join("\n") ?? "",
      /\d+ accepted once a wrong-typed value was converted/,
    );
    for (const id of ["known-good-solves", "learning-signal", "reset-clean"]) {
      assert.equal(findings[id]?.status, "not_checkable", id);
      assert.ok((findings[id]?.evidence[0] ?? "").length > 0, `${id} gives its reason`);
    }
  });

  test("a server that plays one episode at a time: session isolation is not checkable, the rest passes", async () => {
    const { code, findings } = await audit(await startServer("none", "--max-sessions", "1"));
    assert.equal(code, 0, JSON.stringify(findings, null, 1));
    assert.equal(findings["session-isolation"]?.status, "not_checkable");
    assert.match(findings["session-isolation"]?.evidence[0] ?? "", /one episode at a time/);
    for (const id of ["random-agent-fails", "replay-deterministic", "bad-input-coded", "hidden-unreachable"])
      assert.equal(findings[id]?.status, "passed", `${id}: ${JSON.stringify(findings[id])}`);
  });

  for (const [defect, check] of [
    ["leak", "hidden-unreachable"],
    ["shortcut", "random-agent-fails"],
    ["reset", "replay-deterministic"],
  ] as const) {
    test(`proving audit fails the ${defect} server on ${check}`, async () => {
      const { code, findings } = await audit(await startServer(defect));
      assert.equal(code, 1);
      assert.equal(findings[check]?.status, "failed", JSON.stringify(findings[check]));
      const failed = Object.values(findings)
        .filter((f) => f.status === "failed")
        .map((f) => f.id);
      assert.deepEqual(failed, [check], `only ${check} fails`);
    });
  }
});
