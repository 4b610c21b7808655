/** `--store postgres://...` wherever a store is named: run, report, show, export and resume. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { parseJson, runCli } from "../support/cli.ts";
import { type PostgresServer, postgresSkip, startPostgres } from "../support/services.ts";

const skip = postgresSkip();
let server: PostgresServer | undefined;
before(async () => {
  if (!skip) server = await startPostgres();
});
after(async () => {
  await server?.destroy();
});

describe("the CLI on a Postgres store", { skip }, () => {
  test("run records into Postgres; report, show, export and resume read it back", async () => {
    const store = await server!.createDatabase();
    const run = await runCli([
      "run",
      "--family",
      "lost-reply",
      "--agent",
      "cautious",
      "--agent",
      "claims-success",
      "--difficulty",
      "1",
      "--trials",
      "2",
      "--id",
      "pg-run",
      "--store",
      store,
      "--no-report",
      "--no-progress",
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const result = parseJson<{ planned: number; trials: { id: string; outcome: string }[] }>(run);
    assert.equal(result.planned, 4);

    const report = await runCli(["report", "pg-run", "--store", store, "--json"]);
    assert.equal(report.code, 0, report.stderr);
    assert.equal(parseJson<{ planned: number }>(report).planned, 4);

    const show = await runCli(["show", result.trials[0]!.id, "--store", store]);
    assert.equal(show.code, 0, show.stderr);

    const exported = await runCli(["export", "pg-run", "--store", store]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.equal(exported.stdout.trim().split("\n").length, 4);

    const resume = await runCli([
      "resume",
      "pg-run",
      "--store",
      store,
      "--no-report",
      "--no-progress",
      "--json",
    ]);
    assert.equal(resume.code, 0, resume.stderr);
  });
});
