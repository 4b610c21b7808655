/**
 * What a curriculum run leaves in the store: every trial records its real split (episodes `dynamic`,
 * evaluations `regression` / `heldout`), exports leave held-out trials out unless asked, and the run's
 * experiments end with the run's status (`running` while it goes on, `completed`, `interrupted` on abort).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import type { ResolvedAgent } from "../../src/agents/resolve.ts";
import type { TrialRecord } from "../../src/core/contracts.ts";
import { curriculumConfig, openCurriculumStore, runCurriculum } from "../../src/curriculum/index.ts";
import { defaultGym } from "../../src/gym/default-gym.ts";
import { openStore } from "../../src/store/index.ts";
import type { Store } from "../../src/store/store.ts";
import { runCli } from "../support/cli.ts";
import { SPLIT } from "./fixtures/split.ts";

const gym = defaultGym();
const cautious: ResolvedAgent = {
  ref: { id: "cautious", kind: "scripted", spec: "cautious" },
  forWorld: (w) => w.policies[w.knownGood],
};

let dir: string;
let file: string;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "cur-records-"));
  file = path.join(dir, "store.db");
  const history = await openCurriculumStore(file);
  const store = await openStore(file);
  try {
    const config = curriculumConfig({
      id: "rec",
      split: SPLIT,
      agent: cautious.ref.spec,
      episodes: 6,
      evalEvery: 3,
      seed: 2,
    });
    await runCurriculum(config, { gym, store, history, agent: cautious });
  } finally {
    await history.close();
    await store.close();
  }
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function records(store: Store, experimentId: string): Promise<TrialRecord[]> {
  const out: TrialRecord[] = [];
  await store.exportJsonl(experimentId, (line) => {
    out.push(JSON.parse(line) as TrialRecord);
  });
  return out;
}

test("every trial records its real split: episodes dynamic, evaluations regression and heldout", async () => {
  const store = await openStore(file);
  try {
    const splits = async (id: string) => [...new Set((await records(store, id)).map((r) => r.task.split))];
    assert.deepEqual(await splits("rec"), ["dynamic"]);
    assert.deepEqual(await splits("rec/regression"), ["regression"]);
    assert.deepEqual(await splits("rec/heldout"), ["heldout"]);
    for (const r of await records(store, "rec")) assert.equal(r.spec.split, "dynamic");
  } finally {
    await store.close();
  }
});

test("export --split dynamic returns the episodes; held-out trials are exported only when asked", async () => {
  const lines = (stdout: string) => stdout.split("\n").filter((l) => l.trim()).length;
  const dynamic = await runCli(["export", "rec", "--split", "dynamic", "--store", file]);
  assert.equal(dynamic.code, 0, dynamic.stderr);
  assert.equal(lines(dynamic.stdout), 6);
  const rollouts = await runCli([
    "export",
    "rec",
    "--format",
    "rollouts",
    "--split",
    "dynamic",
    "--store",
    file,
  ]);
  assert.equal(rollouts.code, 0, rollouts.stderr);
  assert.ok(lines(rollouts.stdout) > 0);

  for (const format of ["records", "rollouts", "sft"]) {
    const plain = await runCli(["export", "rec/heldout", "--format", format, "--store", file]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(lines(plain.stdout), 0, `${format}: held-out trials left out by default`);
    assert.match(plain.stderr, /left out: 2 heldout/);
    const asked = await runCli([
      "export",
      "rec/heldout",
      "--format",
      format,
      "--include-heldout",
      "--store",
      file,
    ]);
    assert.equal(lines(asked.stdout), 2, `${format} --include-heldout`);
    const named = await runCli([
      "export",
      "rec/heldout",
      "--format",
      format,
      "--split",
      "heldout",
      "--store",
      file,
    ]);
    assert.equal(lines(named.stdout), 2, `${format} --split heldout`);
  }
  const regression = await runCli(["export", "rec/regression", "--store", file]);
  assert.equal(lines(regression.stdout), 8, "4 regression tasks x 2 evaluations");
});

test("a finished run's experiments are completed; an aborted one's interrupted; running while it goes on", async () => {
  const history = await openCurriculumStore(file);
  const store = await openStore(file);
  try {
    const status = async (id: string) => (await store.getExperiment(id))?.status;
    assert.equal((await history.getRun("rec"))?.status, "completed");
    for (const id of ["rec", "rec/regression", "rec/heldout"])
      assert.equal(await status(id), "completed", id);

    const config = curriculumConfig({
      id: "cut",
      split: SPLIT,
      agent: cautious.ref.spec,
      episodes: 8,
      evalEvery: 2,
      seed: 2,
    });
    const abort = new AbortController();
    const during: (string | undefined)[] = [];
    const cut = await runCurriculum(config, {
      gym,
      store,
      history,
      agent: cautious,
      signal: abort.signal,
      onEpisode: (e) => {
        // read as another process would, at this very point of the run
        const db = new Database(file, { readonly: true, fileMustExist: true });
        try {
          const row = db.prepare("select status from experiments where id = ?").get("cut") as
            | { status: string }
            | undefined;
          during.push(row?.status);
        } finally {
          db.close();
        }
        if (e.index === 3) abort.abort();
      },
    });
    assert.equal(cut.interrupted, true);
    assert.equal(cut.episodes.length, 3);
    assert.ok(during.length > 0 && during.every((s) => s === "running"), `during the run: ${during}`);
    assert.equal((await history.getRun("cut"))?.status, "interrupted");
    for (const id of ["cut", "cut/regression", "cut/heldout"])
      assert.equal(await status(id), "interrupted", id);

    const resumed = await runCurriculum(config, { gym, store, history, agent: cautious });
    assert.equal(resumed.episodes.length, 8);
    assert.equal((await history.getRun("cut"))?.status, "completed");
    for (const id of ["cut", "cut/regression", "cut/heldout"])
      assert.equal(await status(id), "completed", id);
  } finally {
    await history.close();
    await store.close();
  }
});
