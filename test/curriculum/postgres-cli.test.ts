/**
 * `proving curriculum run|show|report|review --store postgres://...`: a run records into Postgres,
 * killed with SIGKILL mid-run it resumes with the same continuation, its episodes equal the same run
 * on SQLite, and show / report / review read and write the same database. Real Postgres on a free
 * loopback port (test/support/services.ts); under CI=true a missing Postgres fails.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { parseJson, REPO_ROOT, runCli } from "../support/cli.ts";
import { type PostgresServer, postgresSkip, startPostgres } from "../support/services.ts";
import { CLI_BIN, type CurriculumRunJson, episodeView, regressionView, splitYaml } from "./support.ts";

const EPISODES = 20;

async function episodesStored(url: string, id: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const res = await client.query("select count(*) as n from curriculum_episodes where run_id = $1", [id]);
    return Number(res.rows[0].n);
  } catch {
    return 0; // not migrated yet
  } finally {
    await client.end();
  }
}

const skip = postgresSkip();
let server: PostgresServer | undefined;
let dir: string;
let splits: string;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-cur-pg-"));
  splits = path.join(dir, "splits.yaml");
  fs.writeFileSync(splits, splitYaml("pg-cli-test"));
  if (!skip) server = await startPostgres();
});
after(async () => {
  await server?.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

const runArgs = (id: string, store: string) => [
  "curriculum",
  "run",
  "--agent",
  "new-key-retry",
  "--episodes",
  String(EPISODES),
  "--eval-every",
  "10",
  "--snapshot-every",
  "4",
  "--seed",
  "3",
  "--splits",
  splits,
  "--id",
  id,
  "--store",
  store,
  "--json",
];

describe("proving curriculum on a Postgres store", { skip }, () => {
  test("run, SIGKILL, resume, show and report on Postgres; the episodes equal the same run on SQLite", async () => {
    const url = await server!.createDatabase();
    const onSqlite = await runCli(runArgs("clean", path.join(dir, "store.db")));
    assert.equal(onSqlite.code, 0, onSqlite.stderr);
    const sqliteRun = parseJson<CurriculumRunJson>(onSqlite);
    assert.equal(sqliteRun.episodes.length, EPISODES);

    const onPostgres = await runCli(runArgs("clean", url));
    assert.equal(onPostgres.code, 0, onPostgres.stderr);
    const clean = parseJson<CurriculumRunJson>(onPostgres);
    assert.deepEqual(
      episodeView(clean.episodes),
      episodeView(sqliteRun.episodes),
      "same seed and split: the same run on both dialects",
    );
    assert.deepEqual(regressionView(clean), regressionView(sqliteRun));
    assert.equal(await episodesStored(url, "clean"), EPISODES);

    // the same run under another id, killed mid-run
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const child = spawn(process.execPath, [CLI_BIN, ...runArgs("killed", url)], {
      cwd: REPO_ROOT,
      env,
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    const deadline = Date.now() + 120_000;
    while ((await episodesStored(url, "killed")) < 6 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 25));
    child.kill("SIGKILL");
    await exited;
    const cut = await episodesStored(url, "killed");
    assert.ok(cut >= 6 && cut < EPISODES, `killed after ${cut} episodes`);

    const resumedCli = await runCli(runArgs("killed", url));
    assert.equal(resumedCli.code, 0, resumedCli.stderr);
    const resumed = parseJson<CurriculumRunJson>(resumedCli);
    assert.ok(
      resumed.ran_now! >= 1 && resumed.ran_now! <= EPISODES - 6,
      `ran only what was left (${resumed.ran_now})`,
    );
    assert.deepEqual(episodeView(resumed.episodes), episodeView(clean.episodes));
    assert.deepEqual(regressionView(resumed), regressionView(clean));
    assert.deepEqual(resumed.snapshot, clean.snapshot);

    const shown = await runCli(["curriculum", "show", "killed", "--store", url, "--json"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(episodeView(parseJson<CurriculumRunJson>(shown).episodes), episodeView(clean.episodes));
    const missing = await runCli(["curriculum", "show", "nope", "--store", url]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /unknown_curriculum_run/);

    // the report reads the run's trials and history from Postgres; by default under the working directory
    const reportCli = await runCli(["curriculum", "report", "killed", "--store", url, "--json"], {
      cwd: dir,
    });
    assert.equal(reportCli.code, 0, reportCli.stderr);
    const report = parseJson<{ path: string; bytes: number; health: { check: string; status: string }[] }>(
      reportCli,
    );
    assert.equal(fs.realpathSync(report.path), fs.realpathSync(path.join(dir, "reports", "killed.html")));
    const html = fs.readFileSync(report.path, "utf8");
    assert.ok(html.includes('<section id="curriculum">'));
    assert.ok(html.includes(clean.manifest_hash));
    assert.deepEqual(
      report.health.map((h) => h.check),
      ["duplicate-tasks", "concentration", "difficulty-rising", "regression-instability"],
    );
  });

  test("review fills a pool in Postgres and records decisions there", async () => {
    const url = await server!.createDatabase();
    const base = ["curriculum", "review", "--pool", "P", "--per-key", "1", "--seed", "4", "--store", url];
    const firstCli = await runCli([...base, "--sample", "2", "--json"]);
    assert.equal(firstCli.code, 0, firstCli.stderr);
    const first = parseJson<{ items: number; unreviewed: number; sample: { id: string }[] }>(firstCli);
    assert.ok(first.items > 2);
    assert.equal(first.unreviewed, first.items);
    const [a] = first.sample;
    const decided = parseJson<{ unreviewed: number; decisions: { id: string; decision: string }[] }>(
      await runCli([...base, "--approve", a!.id, "--note", "ok", "--json"]),
    );
    assert.deepEqual(
      decided.decisions.map((d) => [d.id, d.decision]),
      [[a!.id, "approve"]],
    );
    assert.equal(decided.unreviewed, first.items - 1);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const rows = await client.query("select item_id, decision from curriculum_reviews where run_id = 'P'");
      assert.deepEqual(rows.rows, [{ item_id: a!.id, decision: "approve" }]);
    } finally {
      await client.end();
    }
  });
});
