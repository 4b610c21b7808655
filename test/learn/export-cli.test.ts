/** `proving export --format sft|rollouts|preference` over a real store, with its dialect and encoding flags. */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { SftLine } from "../../src/learn/sft-format.ts";
import { runCli } from "../support/cli.ts";
import { assertValid } from "./export-support.ts";

const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

test("proving export --format sft|rollouts|preference on a store; --dialect, --args-as, --tools-as", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proving-export-"));
  try {
    const store = path.join(dir, "p.db");
    const run = await runCli([
      "run",
      "--world",
      "device-support",
      "--family",
      "lost-reply",
      "--difficulty",
      "1",
      "--agent",
      "cautious",
      "--agent",
      "new-key-retry",
      "--trials",
      "2",
      "--store",
      store,
      "--no-report",
      "--no-progress",
      "--id",
      "exp-export",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const exportOf = (...flags: string[]) => runCli(["export", "exp-export", ...flags, "--store", store]);
    // read-only exports of one store, at once
    const cases = [
      { flags: ["--format", "sft"], kind: "sft", count: 2 },
      { flags: ["--format", "rollouts"], kind: "rollouts", count: 4 },
      { flags: ["--format", "preference"], kind: "preference", count: 2 },
      { flags: ["--format", "preference", "--dialect", "openai"], kind: "preference-openai", count: 2 },
    ] as const;
    const [objects, ...results] = await Promise.all([
      exportOf("--format", "sft", "--args-as", "object", "--tools-as", "string"),
      ...cases.map((c) => exportOf(...c.flags)),
    ]);
    for (const [i, { flags, kind, count }] of cases.entries()) {
      const r = results[i];
      assert.equal(r.code, 0, r.stderr);
      const got = jsonLines(r.stdout);
      assert.equal(got.length, count, flags.join(" "));
      for (const line of got) assertValid(kind, line);
    }
    // object arguments for open-model chat templates, the tools list as one JSON string
    assert.equal(objects.code, 0, objects.stderr);
    const sft = jsonLines(objects.stdout)[0] as SftLine;
    assert.equal(typeof sft.tools, "string");
    const first = sft.messages.find((m) => m.role === "assistant");
    assert.equal(first?.role === "assistant" && typeof first.tool_calls[0].function.arguments, "object");
    // bad values are config errors naming the flag
    const bad = await Promise.all(
      [
        ["--format", "csv"],
        ["--args-as", "json"],
        ["--tools-as", "yaml"],
        ["--dialect", "anthropic"],
      ].map(async ([flag, value]) => ({ flag, value, r: await exportOf("--format", "sft", flag, value) })),
    );
    for (const { flag, value, r } of bad) {
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, new RegExp(`${flag} ${value}.*bad_flag`));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
