/**
 * `proving serve --store`: a real server process records each episode as a trial of one experiment,
 * through the runner's recording port. Two episodes over HTTP (the second of the same task, so a
 * second repeat), one over WebSocket, one abandoned: the manifest holds 4 planned trials, 3 records
 * whose outcomes are the episodes' and whose trajectory hashes are those of the same actions played
 * through the runner, the abandoned one `missing`; `proving replay`, `show` and `report` read them.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { TrialRecord, TrialSpec } from "../../src/core/contracts.ts";
import { runTrial } from "../../src/runner/index.ts";
import { ServeClient, type StepEnvelope, type WireAction, WsEpisodeClient } from "../../src/serve/index.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Experiment } from "../../src/store/store.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { firstLine, playPolicy, replaying } from "./play.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const EXPERIMENT = "serve-record-test";

function cli(args: string[]): ChildProcess {
  return spawn(process.execPath, ["--no-node-snapshot", "--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

async function output(child: ChildProcess): Promise<{ code: number | null; out: string; err: string }> {
  let out = "";
  let err = "";
  child.stdout?.on("data", (c) => {
    out += String(c);
  });
  child.stderr?.on("data", (c) => {
    err += String(c);
  });
  const [code] = await once(child, "exit");
  return { code: code as number | null, out, err };
}

/** Plays a device-support policy, keeping the wire actions it sent. */
async function play(
  policy: string,
  first: StepEnvelope,
  step: (a: WireAction) => Promise<StepEnvelope>,
): Promise<{ sent: WireAction[]; last: StepEnvelope }> {
  const sent: WireAction[] = [];
  const { last } = await playPolicy(policy, first, (a) => {
    sent.push(a);
    return step(a);
  });
  return { sent, last };
}

describe("proving serve --store: served episodes are trials", () => {
  let dir: string;
  let db: string;
  let serveErr = "";
  let experiment: Experiment | undefined;
  let manifest: TrialSpec[] = [];
  const records = new Map<string, TrialRecord>();
  let played: { sent: WireAction[]; last: StepEnvelope }[] = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-record-"));
    db = path.join(dir, "proving.db");
    const child = cli([
      "serve",
      "--world",
      "device-support@1",
      "--port",
      "0",
      "--heartbeat-s",
      "0",
      "--json",
      "--store",
      db,
      "--experiment",
      EXPERIMENT,
    ]);
    child.stderr?.on("data", (c) => {
      serveErr += String(c);
    });
    try {
      const line = JSON.parse(await firstLine(child)) as { url: string; experiment: string };
      assert.equal(line.experiment, EXPERIMENT);
      const http = new ServeClient(line.url);
      // 1. HTTP, known-good: passes
      const a = await http.reset({ family: "denied", difficulty: 1, seed: 7 });
      const aId = String(a.metadata.episode_id);
      const pa = await play("cautious", a, (x) => http.step(aId, x));
      // 2. HTTP, the same task again (a second repeat), a policy that skips the approval: violated
      const b = await http.reset({ family: "denied", difficulty: 1, seed: 7 });
      const bId = String(b.metadata.episode_id);
      const pb = await play("skip-approval", b, (x) => http.step(bId, x));
      // 3. WebSocket, known-good
      const ws = await WsEpisodeClient.connect(line.url);
      const c = await ws.reset({ family: "needs-approval", difficulty: 1, seed: 2 });
      const pc = await play("cautious", c, (x) => ws.step(x));
      await ws.close();
      played = [pa, pb, pc];
      // 4. HTTP, abandoned after one step: closed by the client before its end
      const d = await http.reset({ family: "lost-reply", difficulty: 1, seed: 1 });
      const dId = String(d.metadata.episode_id);
      await http.step(dId, { tool: "get_case", args: { case_id: "C-00000" } });
      await http.close(dId);
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
    const store = await openStore(db);
    try {
      experiment = await store.getExperiment(EXPERIMENT);
      manifest = await store.getManifest(EXPERIMENT);
      for (const spec of manifest) {
        const r = await store.getTrial(spec.id);
        if (r) records.set(spec.id, r);
      }
    } finally {
      await store.close();
    }
  });

  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("the run is one experiment: what is served in its config, interrupted (an episode never ended)", () => {
    assert.ok(experiment, "the experiment is stored");
    assert.equal(experiment.config.kind, "serve");
    assert.equal(experiment.config.world, "device-support@1");
    assert.equal(experiment.config.maxSteps, 200);
    assert.equal(experiment.status, "interrupted");
    assert.match(serveErr, /3 of 4 episode\(s\) recorded in experiment serve-record-test/);
  });

  test("the manifest plans every episode, in reset order, with the transport as its agent", () => {
    assert.equal(manifest.length, 4);
    assert.deepEqual(
      manifest.map((s) => [s.index, s.family, s.seed, s.repeat, s.agent.spec, s.budget.maxSteps]),
      [
        [0, "denied", 7, 0, "serve:http", 200],
        [1, "denied", 7, 1, "serve:http", 200],
        [2, "needs-approval", 2, 0, "serve:ws", 200],
        [3, "lost-reply", 1, 0, "serve:http", 200],
      ],
    );
    for (const s of manifest)
      assert.deepEqual({ id: s.agent.id, kind: s.agent.kind }, { id: "serve", kind: "serve" });
    assert.equal(new Set(manifest.map((s) => s.id)).size, 4, "each episode its own trial id");
  });

  test("3 records with the episodes' outcomes; the abandoned episode has none (missing)", () => {
    assert.deepEqual(
      manifest.map((s) => records.get(s.id)?.outcome ?? "missing"),
      ["passed", "violated", "passed", "missing"],
    );
    for (const [i, p] of played.entries()) {
      const r = records.get(manifest[i].id)!;
      assert.deepEqual(r.verdict, p.last.metadata.verdict, "the verdict the client was told");
      assert.equal(r.steps.length, p.sent.length);
      assert.deepEqual(
        r.steps.map((s) => ({ tool: s.action.tool, args: s.action.args })),
        p.sent.map((a) => ({ tool: a.tool, args: a.args })),
      );
      assert.equal(r.stats.steps, p.sent.length);
      assert.deepEqual(r.isolation, { cleanStart: "passed", afterEnd: "passed" });
      assert.ok(r.initial, "the observation after reset");
      assert.ok(r.startedAt <= r.finishedAt);
    }
  });

  test("each trajectory hash equals the runner's for the same actions", async () => {
    for (const spec of manifest.slice(0, 3)) {
      const served = records.get(spec.id)!;
      const again = await runTrial(spec, {
        world: deviceSupport,
        agent: replaying(served.steps.map((s) => s.action)),
      });
      assert.equal(again.outcome, served.outcome);
      assert.equal(again.trajectoryHash, served.trajectoryHash, `trial ${spec.index}`);
      assert.deepEqual(again.steps, served.steps);
    }
  });

  test("proving replay, show and report read a served trial like any other", async () => {
    const violated = manifest[1].id;
    const replay = await output(cli(["replay", violated, "--store", db, "--json", "--exit-code"]));
    assert.equal(replay.code, 0, replay.err);
    assert.equal((JSON.parse(replay.out) as { reproduced: boolean }).reproduced, true);
    const show = await output(cli(["show", violated, "--store", db, "--json"]));
    assert.equal(show.code, 0, show.err);
    assert.equal((JSON.parse(show.out) as TrialRecord).outcome, "violated");
    const report = await output(cli(["report", EXPERIMENT, "--store", db]));
    assert.equal(report.code, 0, report.err);
    assert.match(report.out, /serve/);
  });
});
