/**
 * `--agent learner:q|pg` in `proving run`: one policy shared by the run's trials, played one at a time
 * in manifest order whatever --concurrency says (so the saved policy is the same at any
 * concurrency), saved with its training history (`save=FILE`), restored frozen (`policy=FILE`: greedy,
 * no updates), and bad options refused with a coded error.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { parseJson, runCli } from "../support/cli.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-learner-kind-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

interface RunJson {
  trials: { outcome: string }[];
}
interface Policy {
  learner: string;
  hash: string;
  history: { updates: number };
}

const run = (id: string, agent: string, extra: string[] = []) =>
  runCli(
    [
      "run",
      "--world",
      "device-support@1",
      "--difficulty",
      "1",
      "--trials",
      "3",
      "--agent",
      agent,
      "--id",
      id,
      "--store",
      path.join(dir, `${id}.db`),
      "--json",
      ...extra,
    ],
    { cwd: dir },
  );
const policy = (file: string): Policy => JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));

describe("learner agents in proving run", () => {
  test("learner:q learns across the run's trials, in manifest order, whatever the concurrency", async () => {
    const one = await run("q1", "learner:q?seed=4&save=q1.json", ["--concurrency", "1"]);
    assert.equal(one.code, 0, one.stderr);
    const rows = parseJson<RunJson>(one).trials;
    assert.ok(rows.length >= 8);
    assert.ok(rows.every((t) => t.outcome !== "infra_error" && t.outcome !== "missing"));
    const saved = policy("q1.json");
    assert.equal(saved.learner, "learner.q@1");
    assert.equal(saved.history.updates, rows.length, "one update per trial");
    const four = await run("q4", "learner:q?seed=4&save=q4.json", ["--concurrency", "4"]);
    assert.equal(four.code, 0, four.stderr);
    assert.equal(policy("q4.json").hash, saved.hash, "the same updates in the same order");
  });

  test("policy=FILE plays the saved policy frozen: nothing is updated", async () => {
    const played = await run("frozen", "learner:q?policy=q1.json&save=after.json");
    assert.equal(played.code, 0, played.stderr);
    assert.equal(policy("after.json").hash, policy("q1.json").hash);
  });

  test("bad options are refused before anything runs", async () => {
    const unknown = await run("bad", "learner:q?alpah=0.2");
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /bad_agent_spec|unknown option "alpah"/);
    const kind = await run("bad2", "learner:sarsa");
    assert.equal(kind.code, 2);
    assert.match(kind.stderr, /learner:q and learner:pg/);
  });
});

describe("learner agents in proving curriculum run", () => {
  test("episodes train the learner; the regression evaluations play it frozen (they add no update)", async () => {
    const out = await runCli(
      [
        "curriculum",
        "run",
        "--agent",
        "learner:q?seed=2&save=curriculum.json",
        "--episodes",
        "20",
        "--eval-every",
        "10",
        "--max-steps",
        "40",
        "--id",
        "cur",
        "--store",
        path.join(dir, "cur.db"),
        "--json",
      ],
      { cwd: dir },
    );
    assert.equal(out.code, 0, out.stderr);
    const run = parseJson<{ episodes: unknown[]; regression: unknown[] }>(out);
    assert.equal(run.episodes.length, 20);
    assert.ok(run.regression.length >= 2, "two regression evaluations ran");
    assert.equal(
      policy("curriculum.json").history.updates,
      20,
      "one update per episode, none per evaluation trial",
    );
  });
});
