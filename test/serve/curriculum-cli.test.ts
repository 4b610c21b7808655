/**
 * `proving serve --curriculum --store DB` over real processes: bare resets draw from the curriculum,
 * finished episodes land in the curriculum's history (`proving curriculum show` reads them), and a
 * server started again on the same store continues the run (same snapshot id, the episodes count
 * on); `proving curriculum report` builds its report. `--curriculum` without `--store` is refused.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { TaskObservation } from "../../src/core/contracts.ts";
import type { JsonObject } from "../../src/core/json.ts";
import { ServeClient } from "../../src/serve/index.ts";
import { deviceSupport } from "../../src/worlds/index.ts";
import { parseJson, runCli, spawnCli } from "../support/cli.ts";
import { firstLine } from "./play.ts";

const WORLD = "device-support@1";

async function start(db: string): Promise<{ child: ChildProcess; url: string; curriculum: string }> {
  const child = spawnCli([
    "serve",
    "--world",
    WORLD,
    "--port",
    "0",
    "--heartbeat-s",
    "0",
    "--store",
    db,
    "--curriculum",
    "--strategy",
    "uniform",
    "--json",
  ]);
  const line = JSON.parse(await firstLine(child)) as { url: string; curriculum: string };
  return { child, url: line.url, curriculum: line.curriculum };
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill("SIGINT");
  await once(child, "exit");
}

async function doc(url: string): Promise<JsonObject> {
  return (await (await fetch(`${url}/curriculum`)).json()) as JsonObject;
}

/** `GET /curriculum` once `episodes` episodes have reached the curriculum (records settle after the reply). */
async function docAfter(url: string, episodes: number): Promise<JsonObject> {
  let d = await doc(url);
  const end = Date.now() + 20_000;
  while (d.episodes !== episodes && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 25));
    d = await doc(url);
  }
  return d;
}

/** Plays `n` bare-reset episodes with device-support's known-good policy. */
async function play(url: string, n: number): Promise<void> {
  const client = new ServeClient(url);
  for (let i = 0; i < n; i++) {
    let current = await client.reset();
    assert.ok(current.metadata.curriculum, "a bare reset is the curriculum's");
    const id = String(current.metadata.episode_id);
    const obs = current.observation as TaskObservation;
    const session = await deviceSupport.policies.cautious.start({
      episodeId: id,
      world: WORLD,
      instruction: obs.instruction,
      tools: obs.tools,
      samplingSeed: 0,
    });
    while (!current.done) {
      const a = await session.act(current.observation);
      current = await client.step(id, { tool: a.tool, args: a.args });
    }
    await client.close(id);
  }
}

test("proving serve --curriculum: episodes in the curriculum's history, continued by a restarted server", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-curriculum-cli-"));
  const db = path.join(dir, "proving.db");
  try {
    const first = await start(db);
    let snapshotId: unknown;
    try {
      assert.equal(first.curriculum, `serve-${WORLD}-uniform`);
      await play(first.url, 3);
      const d = await docAfter(first.url, 3);
      assert.equal(d.episodes, 3);
      assert.equal(d.strategy, "uniform");
      snapshotId = d.snapshot_id;
    } finally {
      await stop(first.child);
    }
    const shown = parseJson<{ id: string; strategy: string; episodes: { passed: boolean; trial: string }[] }>(
      await runCli(["curriculum", "show", first.curriculum, "--store", db, "--json"]),
    );
    assert.equal(shown.strategy, "uniform");
    assert.equal(shown.episodes.length, 3);
    assert.ok(shown.episodes.every((e) => e.passed));
    // the report is built on the served experiment, with the curriculum's section
    const out = path.join(dir, "report.html");
    const report = await runCli(["curriculum", "report", first.curriculum, "--store", db, "--out", out]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(fs.readFileSync(out, "utf8"), /serve-device-support@1-uniform/);

    const second = await start(db);
    try {
      const d = await doc(second.url);
      assert.equal(d.snapshot_id, snapshotId);
      assert.equal(d.episodes, 3);
      await play(second.url, 1);
      assert.equal((await docAfter(second.url, 4)).episodes, 4);
    } finally {
      await stop(second.child);
    }
    const again = parseJson<{ episodes: { index: number }[] }>(
      await runCli(["curriculum", "show", first.curriculum, "--store", db, "--json"]),
    );
    assert.deepEqual(
      again.episodes.map((e) => e.index),
      [1, 2, 3, 4],
    );
    // a served run is continued by a server, not by `curriculum run`
    const run = await runCli(["curriculum", "run", "--id", first.curriculum, "--store", db]);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /is served .*proving serve --curriculum/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("proving serve --curriculum needs --store", async () => {
  const r = await runCli(["serve", "--world", WORLD, "--port", "0", "--curriculum"]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /--curriculum learns from recorded episodes: give --store/);
});
